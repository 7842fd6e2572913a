import ConformDiagnostics
import Foundation

/// A trace on disk, told apart by its content, never its name: a recording (a directory, or JSON lines starting
/// `{"seq"`) or a HAR (a JSON object with `log`), the HAR possibly gzip- or zlib-compressed (`.har.gz`,
/// mitmproxy's `.zhar`) or inside a ZIP (Playwright's `.zip`, its attached bodies beside it).
public enum TraceFile {
    /// What a path holds.
    public enum Contents: Sendable {
        /// A recording directory or `exchanges.jsonl`: read it with ``RecordingReader``.
        case recording(String)
        /// A HAR's JSON text and where its attached bodies are.
        case har(Data, attachments: HAR.Attachments)
    }

    /// Why a trace cannot be read.
    public struct Failure: DiagnosticConvertible, Sendable, Hashable, CustomStringConvertible {
        public var file: String
        public var message: String
        public var help: String
        /// The problem as a `trace.invalid` diagnostic about the file as a whole.
        public var diagnostic: Diagnostic { Diagnostic(.traceInvalid, file: file, message: message, help: help) }
        public var description: String { diagnostic.rendered(sourceLine: nil) }
    }

    /// The largest HAR read into memory once decompressed (2 GiB).
    public static let maxHARBytes = 2 << 30

    /// Opens `path` and says what it holds.
    public static func open(_ path: String) throws(Failure) -> Contents {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw Failure(file: path, message: "no such file or directory", help: "check the path")
        }
        if isDirectory.boolValue { return .recording(path) }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw Failure(file: path, message: "cannot read the file", help: "check that it is readable")
        }
        let head = (try? handle.read(upToCount: 4096)) ?? Data()
        try? handle.close()
        let directory = (path as NSString).deletingLastPathComponent
        let besideTheFile: HAR.Attachments = { name throws(ConfinedFile.Refusal) in
            // Only inside the HAR's directory, through no link: an attachment must not reach elsewhere on the disk.
            try ConfinedFile.read(name, in: directory, limit: HAR.maxAttachmentBytes)
        }
        // An empty file is a recording with nothing in it (the one a recorder that saw no traffic leaves):
        // what reads it finds nothing to judge.
        if head.isEmpty { return .recording(path) }
        if let kind = packetCapture(head) {
            throw Failure(
                file: path, message: "is a packet capture (\(kind)), not a recording or a HAR",
                help: "turn it into a recording first (conform import FILE --out recordings/NAME, with --port N to "
                    + "read only the server port of the HTTP traffic), then pass recordings/NAME")
        }
        if ZipArchive.looksLikeZip(head) {
            return try zipped(path)
        }
        if Decompression.looksCompressed(head) {
            let data = try read(path)
            do {
                let text = try Decompression.inflate(data, limit: maxHARBytes)
                guard format(of: text) == .har else {
                    throw Failure(
                        file: path, message: "decompresses to something that is not a HAR",
                        help: "pass a HAR (plain, .har.gz, mitmproxy's .zhar, or Playwright's .zip) or a recording")
                }
                return .har(text, attachments: besideTheFile)
            } catch let error as Decompression.Failure {
                throw Failure(
                    file: path, message: "cannot decompress: \(error.message)", help: "export the trace again")
            } catch let error as Failure {
                throw error
            } catch {
                throw Failure(file: path, message: "\(error)", help: "export the trace again")
            }
        }
        switch format(of: head) {
        case .har?: return .har(try read(path), attachments: besideTheFile)
        case .recording?: return .recording(path)
        case nil:
            throw Failure(
                file: path, message: "neither a recording nor a HAR (it starts \(preview(head)))",
                help: "pass a recording (a directory or exchanges.jsonl) or a HAR (plain, .har.gz, .zhar or .zip)")
        }
    }

    /// The HAR text of a compressed or zipped trace (`.har.gz`, mitmproxy's `.zhar`, Playwright's `.zip`), read as
    /// ``open(_:)`` reads it, within the same limits; `nil` for any other file, whose bytes are already its text.
    public static func unpackedHAR(_ path: String) throws(Failure) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        let head = (try? handle.read(upToCount: 4096)) ?? Data()
        try? handle.close()
        guard ZipArchive.looksLikeZip(head) || Decompression.looksCompressed(head) else { return nil }
        guard case .har(let text, _) = try open(path) else { return nil }
        return text
    }

    /// Whether `path` holds a trace rather than something else (a suite, a directory of suites), told from the
    /// content's first bytes as ``open(_:)`` tells it: a directory with `exchanges.jsonl`, or a file that is a ZIP,
    /// compressed, or JSON starting with `seq` or `log`.
    public static func holdsTrace(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return false }
        if isDirectory.boolValue {
            return FileManager.default.fileExists(
                atPath: (path as NSString).appendingPathComponent(RecordingLayout.exchangesFile))
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        let head = (try? handle.read(upToCount: 4096)) ?? Data()
        try? handle.close()
        // A packet capture is a trace too, so `diff` sends it where the advice to import it is given.
        return ZipArchive.looksLikeZip(head) || Decompression.looksCompressed(head) || format(of: head) != nil
            || packetCapture(head) != nil
    }

    /// `pcap` or `pcapng` when `head` starts with a capture file's magic number (tcpdump, tshark, Wireshark), else
    /// `nil`.
    static func packetCapture(_ head: Data) -> String? {
        guard head.count >= 4 else { return nil }
        let magic = Array(head.prefix(4))
        let pcap: [[UInt8]] = [
            [0xA1, 0xB2, 0xC3, 0xD4], [0xD4, 0xC3, 0xB2, 0xA1], [0xA1, 0xB2, 0x3C, 0x4D], [0x4D, 0x3C, 0xB2, 0xA1],
        ]
        if pcap.contains(magic) { return "pcap" }
        return magic == [0x0A, 0x0D, 0x0D, 0x0A] ? "pcapng" : nil
    }

    enum Format { case recording, har }

    /// The format JSON text starts with: its first key `seq` (a recording line) or `log` (a HAR).
    static func format(of text: Data) -> Format? {
        var bytes = text.prefix(4096).drop {
            $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF
        }
        guard bytes.first == UInt8(ascii: "{") else { return nil }
        bytes = bytes.dropFirst().drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        if bytes.starts(with: Array("\"seq\"".utf8)) { return .recording }
        if bytes.starts(with: Array("\"log\"".utf8)) { return .har }
        return nil
    }

    private static func zipped(_ path: String) throws(Failure) -> Contents {
        let data = try read(path)
        do {
            let archive = try ZipArchive(data)
            guard let entry = archive.entries.first(where: { $0.name.lowercased().hasSuffix(".har") }) else {
                throw Failure(
                    file: path, message: "the ZIP holds no .har file",
                    help: "Playwright writes the HAR as an entry ending in .har; pass that archive or the HAR itself")
            }
            guard let text = try archive.contents(of: entry.name, limit: maxHARBytes) else {
                throw Failure(file: path, message: "cannot read \(entry.name)", help: "export the trace again")
            }
            let attachments: HAR.Attachments = { name throws(ConfinedFile.Refusal) in
                guard let data = try? archive.contents(of: name, limit: HAR.maxAttachmentBytes) else { throw .missing }
                return data
            }
            return .har(text, attachments: attachments)
        } catch let error as Decompression.Failure {
            throw Failure(file: path, message: "cannot read the ZIP: \(error.message)", help: "export the trace again")
        } catch let error as Failure {
            throw error
        } catch {
            throw Failure(file: path, message: "\(error)", help: "export the trace again")
        }
    }

    /// The file's bytes, mapped rather than copied: a HAR is then read entry by entry from the page cache.
    private static func read(_ path: String) throws(Failure) -> Data {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else {
            throw Failure(file: path, message: "cannot read the file", help: "check that it is readable")
        }
        return data
    }

    private static func preview(_ head: Data) -> String {
        let text = String(decoding: head.prefix(16), as: UTF8.self)
        return "'"
            + text.map { $0.isASCII && !$0.isNewline && ($0.asciiValue ?? 0) >= 0x20 ? String($0) : "?" }.joined() + "'"
    }
}
