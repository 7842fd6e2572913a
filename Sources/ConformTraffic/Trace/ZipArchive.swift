import Foundation

/// Reads the entries of a ZIP file held in memory (stored or deflated; what Playwright writes for `x.zip` HARs).
///
/// Every offset and size comes from the file, so each is checked against the data before use.
public struct ZipArchive: Sendable {
    /// One file in the archive.
    public struct Entry: Sendable, Hashable {
        public var name: String
        var method: UInt16
        var compressedSize: Int
        var size: Int
        var localHeaderOffset: Int
    }

    public let entries: [Entry]
    private let data: Data

    /// Whether `data` starts like a ZIP file.
    public static func looksLikeZip(_ data: Data) -> Bool { data.starts(with: [0x50, 0x4B, 0x03, 0x04]) }

    public init(_ data: Data) throws(Decompression.Failure) {
        self.data = data
        let bytes = [UInt8](data)
        // The end-of-central-directory record sits in the last 64 KiB + 22 bytes.
        let earliest = max(0, bytes.count - (65_535 + 22))
        var end: Int?
        var i = bytes.count - 22
        while i >= earliest {
            if bytes[i] == 0x50, bytes[i + 1] == 0x4B, bytes[i + 2] == 0x05, bytes[i + 3] == 0x06 {
                end = i
                break
            }
            i -= 1
        }
        guard let end else { throw Decompression.Failure(message: "not a ZIP file (no central directory)") }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        let count = u16(end + 10)
        var offset = u32(end + 16)
        var entries: [Entry] = []
        for _ in 0..<count {
            guard offset >= 0, offset + 46 <= bytes.count, u32(offset) == 0x0201_4B50 else {
                throw Decompression.Failure(message: "the ZIP central directory is damaged")
            }
            let nameLength = u16(offset + 28)
            let skip = nameLength + u16(offset + 30) + u16(offset + 32)
            guard offset + 46 + skip <= bytes.count else {
                throw Decompression.Failure(message: "the ZIP central directory is damaged")
            }
            let name = String(decoding: bytes[(offset + 46)..<(offset + 46 + nameLength)], as: UTF8.self)
            let compressed = u32(offset + 20)
            let size = u32(offset + 24)
            let local = u32(offset + 42)
            if compressed == 0xFFFF_FFFF || size == 0xFFFF_FFFF || local == 0xFFFF_FFFF {
                throw Decompression.Failure(message: "ZIP64 archives are not supported (entry \(name))")
            }
            entries.append(
                Entry(
                    name: name, method: UInt16(u16(offset + 10)), compressedSize: compressed, size: size,
                    localHeaderOffset: local))
            offset += 46 + skip
        }
        self.entries = entries
    }

    /// The contents of the entry named `name`, or `nil` when there is none.
    public func contents(of name: String, limit: Int = Decompression.defaultLimit) throws(Decompression.Failure)
        -> Data?
    {
        guard let entry = entries.first(where: { $0.name == name }) else { return nil }
        let start = entry.localHeaderOffset
        guard start >= 0, start + 30 <= data.count else {
            throw Decompression.Failure(message: "entry \(name) lies outside the file")
        }
        let base = data.startIndex + start
        func u16(_ at: Int) -> Int { Int(data[base + at]) | Int(data[base + at + 1]) << 8 }
        guard data[base] == 0x50, data[base + 1] == 0x4B, data[base + 2] == 0x03, data[base + 3] == 0x04 else {
            throw Decompression.Failure(message: "entry \(name) has no local header")
        }
        let bodyStart = start + 30 + u16(26) + u16(28)
        guard bodyStart + entry.compressedSize <= data.count else {
            throw Decompression.Failure(message: "entry \(name) lies outside the file")
        }
        let body = data.subdata(
            in: (data.startIndex + bodyStart)..<(data.startIndex + bodyStart + entry.compressedSize))
        switch entry.method {
        case 0:
            guard body.count <= limit else {
                throw Decompression.Failure(message: "entry \(name) is over \(limit) bytes")
            }
            return body
        case 8: return try Decompression.inflate(body, raw: true, limit: limit)
        default: throw Decompression.Failure(message: "entry \(name) uses compression method \(entry.method)")
        }
    }
}
