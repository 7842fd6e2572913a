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
    private var byPrefix: [UInt64: [[UInt8]]] = [:]

    var isEmpty: Bool { pseudonyms.isEmpty }

    mutating func insert(_ secret: String, pseudonym: String) {
        let bytes = Array(secret.utf8)
        guard bytes.count >= Self.minimumLength else { return }
        if pseudonyms.updateValue(pseudonym, forKey: secret) == nil {
            byPrefix[Self.prefix(bytes, at: 0), default: []].append(bytes)
        }
    }

    /// Every known secret in `text` replaced by its pseudonym, the longest first where several start at one place.
    func replacing(in text: String) -> String {
        guard !pseudonyms.isEmpty else { return text }
        let bytes = Array(text.utf8)
        guard bytes.count >= Self.minimumLength else { return text }
        var out: [UInt8] = []
        var copied = 0
        var i = 0
        while i + Self.minimumLength <= bytes.count {
            var longest: [UInt8]?
            for candidate in byPrefix[Self.prefix(bytes, at: i)] ?? []
            where candidate.count > (longest?.count ?? 0) && i + candidate.count <= bytes.count
                && bytes[i..<(i + candidate.count)].elementsEqual(candidate)
            {
                longest = candidate
            }
            guard let found = longest, let pseudonym = pseudonyms[String(decoding: found, as: UTF8.self)] else {
                i += 1
                continue
            }
            out += bytes[copied..<i]
            out += pseudonym.utf8
            i += found.count
            copied = i
        }
        guard copied > 0 else { return text }
        out += bytes[copied...]
        return String(decoding: out, as: UTF8.self)
    }

    private static func prefix(_ bytes: [UInt8], at start: Int) -> UInt64 {
        var key: UInt64 = 0
        for offset in 0..<minimumLength { key = key << 8 | UInt64(bytes[start + offset]) }
        return key
    }
}
