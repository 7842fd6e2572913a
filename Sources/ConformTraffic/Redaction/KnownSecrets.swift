import Foundation

/// Credentials seen so far, with their pseudonyms, found in text in one pass whatever their number.
///
/// Every secret has at least ``minimumLength`` bytes, so each is filed under its first bytes packed into a
/// `UInt64`; a scan looks each position's first bytes up and compares only the secrets filed there. Looking every
/// secret up in every text instead would cost (secrets × text) per exchange: quadratic over a recording in which
/// each exchange brings a new credential.
struct KnownSecrets: Sendable {
    /// Shorter values are too likely to occur by chance to be replaced wherever they appear.
    static let minimumLength = 6

    private var pseudonyms: [String: String] = [:]
    private var byPrefix: [UInt64: [(secret: [UInt8], pseudonym: String)]] = [:]
    /// One bit for each prefix filed (by a hash of it, 65,536 bits): a scan looks ``byPrefix`` up only where the
    /// bit is set, so a text with no known secret in it costs a shift and a load a byte, not a hash.
    private var filter: [UInt64] = []

    private static func bit(_ prefix: UInt64) -> Int {
        Int(truncatingIfNeeded: (prefix &* 0x9E37_79B9_7F4A_7C15) >> 48)
    }

    private func mayHold(_ prefix: UInt64) -> Bool {
        let bit = Self.bit(prefix)
        return filter[bit >> 6] & (1 << UInt64(bit & 63)) != 0
    }

    var isEmpty: Bool { pseudonyms.isEmpty }

    mutating func insert(_ secret: String, pseudonym: String) {
        let bytes = Array(secret.utf8)
        guard bytes.count >= Self.minimumLength else { return }
        if pseudonyms.updateValue(pseudonym, forKey: secret) == nil {
            let prefix = Self.prefix(bytes, at: 0)
            byPrefix[prefix, default: []].append((bytes, pseudonym))
            if filter.isEmpty { filter = Array(repeating: 0, count: 1024) }
            let bit = Self.bit(prefix)
            filter[bit >> 6] |= 1 << UInt64(bit & 63)
        }
    }

    /// The pseudonym of a known secret.
    func pseudonym(of secret: String) -> String? { pseudonyms[secret] }

    /// Where known secrets occur in `text`, in order, the longest where several start at one place.
    func ranges(in text: String) -> [Range<String.Index>] {
        guard !pseudonyms.isEmpty, text.utf8.count >= Self.minimumLength else { return [] }
        var text = text
        let found: [Range<Int>] = text.withUTF8 { bytes in
            var found: [Range<Int>] = []
            eachLongest(in: bytes) { range, _ in found.append(range) }
            return found
        }
        let view = text.utf8
        return found.map {
            view.index(view.startIndex, offsetBy: $0.lowerBound)..<view.index(view.startIndex, offsetBy: $0.upperBound)
        }
    }

    /// Every known secret in `text` replaced by its pseudonym, the longest first where several start at one place.
    func replacing(in text: String) -> String {
        guard !pseudonyms.isEmpty, text.utf8.count >= Self.minimumLength else { return text }
        var text = text
        let replaced: [UInt8]? = text.withUTF8 { bytes in
            var out: [UInt8] = []
            var copied = 0
            eachLongest(in: bytes) { range, pseudonym in
                out += bytes[copied..<range.lowerBound]
                out += pseudonym.utf8
                copied = range.upperBound
            }
            guard copied > 0 else { return nil }
            out += bytes[copied...]
            return out
        }
        return replaced.map { String(decoding: $0, as: UTF8.self) } ?? text
    }

    /// Calls `body` with each known secret in `bytes`, in order and not overlapping, the longest where several start
    /// at one place, and its pseudonym.
    private func eachLongest(in bytes: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>, String) -> Void) {
        var i = 0
        while i + Self.minimumLength <= bytes.count {
            let prefix = Self.prefix(bytes, at: i)
            guard mayHold(prefix) else {
                i += 1
                continue
            }
            var longest: (secret: [UInt8], pseudonym: String)?
            for candidate in byPrefix[prefix] ?? []
            where candidate.secret.count > (longest?.secret.count ?? 0) && i + candidate.secret.count <= bytes.count
                && Self.equal(bytes, at: i, candidate.secret)
            {
                longest = candidate
            }
            guard let found = longest else {
                i += 1
                continue
            }
            body(i..<i + found.secret.count, found.pseudonym)
            i += found.secret.count
        }
    }

    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, _ secret: [UInt8]) -> Bool {
        secret.withUnsafeBufferPointer { memcmp(bytes.baseAddress! + start, $0.baseAddress!, $0.count) == 0 }
    }

    private static func prefix(_ bytes: some RandomAccessCollection<UInt8>, at start: Int) -> UInt64 {
        var key: UInt64 = 0
        var index = bytes.index(bytes.startIndex, offsetBy: start)
        for _ in 0..<minimumLength {
            key = key << 8 | UInt64(bytes[index])
            bytes.formIndex(after: &index)
        }
        return key
    }
}
