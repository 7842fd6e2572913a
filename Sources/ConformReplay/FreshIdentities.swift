import ConformCore
import ConformTraffic
import Foundation
import Synchronization

/// The persons of a recording under names of one run's own (`replay --fresh-identities`): every externalUserId,
/// email and phone the protocol profile says an exchange holds is rewritten, the same way in requests, expected
/// answers and app events, so one recording replays any number of times against one long-lived target.
///
/// A value at a declared place (``ProtocolProfile/ReplayKeys``) is made fresh by a function of the run's prefix and
/// the value alone, so every flow agrees without sharing anything; a value met there is also remembered, and the
/// same whole value anywhere else in a JSON body, a query or a path segment (a push's `destination`) is rewritten
/// too.
public final class FreshIdentities: Sendable {
    /// What a fresh identity starts with: letters, digits and `-`, 1 to 32 of them.
    public let prefix: String
    public let keys: ProtocolProfile.ReplayKeys
    /// Added to the last digits of a phone number, so phones stay digits of the same length.
    private let phoneShift: UInt64
    /// Recorded identities met at declared places, to their fresh values; cleared when it holds ``rememberedLimit``.
    private let remembered = Mutex<[String: String]>([:])
    /// How many identities are remembered at once, so memory stays flat over a long replay.
    static let rememberedLimit = 65_536
    /// Values shorter than this are rewritten only at declared places (too likely to occur by chance elsewhere).
    static let shortestElsewhere = 3

    /// `nil` when `prefix` is not 1 to 32 letters, digits or `-`.
    public init?(prefix: String, keys: ProtocolProfile.ReplayKeys) {
        guard Self.isValidPrefix(prefix) else { return nil }
        self.prefix = prefix
        self.keys = keys
        // FNV-1a of the prefix: each run's phones move by their own amount.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in prefix.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        phoneShift = hash
    }

    /// Whether `text` can be a prefix: 1 to 32 ASCII letters, digits or `-`.
    public static func isValidPrefix(_ text: String) -> Bool {
        (1...32).contains(text.utf8.count) && text.utf8.allSatisfy(IdentifierMap.isTokenByte)
    }

    /// A prefix of its own for one run: `r` and 7 random lowercase letters or digits.
    public static func randomPrefix() -> String {
        let alphabet = "abcdefghijklmnopqrstuvwxyz0123456789".utf8
        return "r" + String(decoding: (0..<7).map { _ in alphabet.randomElement()! }, as: UTF8.self)
    }

    /// The fresh value of the identity `value` of kind `kind`; the protocol still accepts it (an email stays an
    /// address, a phone the same count of digits) and two values never share one. A value that does not have the
    /// shape of its kind (`not an email` where an email goes, `call-me-maybe` where a phone goes) is no one's
    /// identity: a deliberately invalid value, kept as recorded so the target refuses it as it was refused.
    public func fresh(_ value: String, kind: ProtocolProfile.IdentityKind) -> String {
        switch kind {
        case .opaque: return "\(prefix)-\(value)"
        case .email:
            guard Self.isEmailShaped(value), let at = value.lastIndex(of: "@") else { return value }
            return "\(prefix)-\(value[..<at])\(value[at...])"
        case .phone:
            return freshPhone(value) ?? value
        case .byShape:
            if value.contains("@") { return fresh(value, kind: .email) }
            return freshPhone(value) ?? fresh(value, kind: .opaque)
        }
    }

    /// Whether `value` has the shape of an email address: one `@` between a non-empty local part and a domain with
    /// a dot, no spaces or control characters.
    static func isEmailShaped(_ value: String) -> Bool {
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."),
            !parts[1].hasSuffix(".")
        else { return false }
        return value.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F }
    }

    /// `+` and 5 to 15 digits with the last ones moved by the run's shift (modulo their count, so distinct numbers
    /// stay distinct and the country code stays); `nil` when `value` is not a phone number.
    func freshPhone(_ value: String) -> String? {
        let sign = value.hasPrefix("+") ? "+" : ""
        let digits = Array(value.utf8.dropFirst(sign.count))
        guard (5...15).contains(digits.count), digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let moved = min(digits.count - 2, 9)
        var modulus: UInt64 = 1
        for _ in 0..<moved { modulus *= 10 }
        var tail: UInt64 = 0
        for d in digits.suffix(moved) { tail = tail * 10 + UInt64(d - 0x30) }
        let shift = phoneShift % (modulus - 1) + 1
        let shifted = String((tail + shift) % modulus)
        let head = String(decoding: digits.dropLast(moved), as: UTF8.self)
        return sign + head + String(repeating: "0", count: moved - shifted.count) + shifted
    }

    /// The exchange with its request and (decoded) answer rewritten.
    public func apply(_ exchange: RecordedExchange) -> RecordedExchange {
        exchange.rewritten(request: { apply($0) }, response: { apply($0) })
    }

    /// The request with identities rewritten in its URL (declared query parameters, and remembered values as whole
    /// query values or path segments) and its JSON body; `Content-Length` kept true.
    public func apply(_ request: HTTPRequest) -> HTTPRequest {
        var out = request
        out.url = apply(url: request.url)
        out.body = apply(body: request.body)
        if out.body.count != request.body.count { out.headerFields.keepContentLength(out.body.count) }
        return out
    }

    /// The answer, decoded, with identities rewritten in its JSON body, and inside its texts (an error message that
    /// names a person: `No person with EXTERNAL_ID 'cust-ana'.`), which a correct target writes with the fresh value.
    public func apply(_ response: HTTPResponse) -> HTTPResponse {
        var out = ContentDecoding.decoded(response)
        out.body = apply(body: out.body, inTexts: true)
        return out
    }

    /// The app event with its user rewritten.
    public func apply(_ event: AppEvent) -> AppEvent {
        var out = event
        out.externalUserId = event.externalUserId.map { value in
            let fresh = fresh(value, kind: .opaque)
            remember(value, fresh)
            return fresh
        }
        return out
    }

    /// A JSON body with identities rewritten (and JSON carried in its strings); any other body as it came.
    func apply(body: Data, inTexts: Bool = false) -> Data {
        guard !body.isEmpty, let value = JSONValue.parsedBody(body) else { return body }
        let rewritten = apply(json: value, inTexts: inTexts)
        return rewritten == value ? body : Data(rewritten.serialized().utf8)
    }

    /// `value` with identities rewritten at declared places and where a remembered one stands whole; with `inTexts`
    /// also where one stands as a word inside a longer text (an answer's message).
    func apply(json value: JSONValue, inTexts: Bool = false) -> JSONValue {
        // First what the declared places hold, so a value met later in the same body is known where it occurs.
        value.walk { path, node in
            guard case .string(let text) = node, !text.isEmpty, let kind = keys.identityKind(at: path) else { return }
            remember(text, fresh(text, kind: kind))
        }
        return value.rewritten { path, node in
            guard case .string(let text) = node, !text.isEmpty else { return nil }
            if let kind = keys.identityKind(at: path) { return .string(fresh(text, kind: kind)) }
            if let known = known(text) { return .string(known) }
            if let first = text.first, first == "{" || first == "[", let embedded = try? JSONValue.parse(text) {
                let rewritten = apply(json: embedded, inTexts: inTexts)
                return rewritten == embedded ? nil : .string(rewritten.serialized())
            }
            if inTexts, let mapped = mapped(inText: text) { return .string(mapped) }
            return nil
        }
    }

    /// `text` with each remembered identity that stands in it as a word (a run of letters, digits and `-_.@+`,
    /// a trailing `.` ending the sentence, not the value) replaced by its fresh value; `nil` when none does.
    /// Linear in the text: each word is looked up once.
    func mapped(inText text: String) -> String? {
        guard text.utf8.count <= Self.longestText, remembered.withLock({ !$0.isEmpty }) else { return nil }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { bytes in
            var splice = ByteSplice()
            bytes.forEachRun(of: Self.isWordByte) { word in
                var end = word.upperBound
                while end > word.lowerBound, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
                if end - word.lowerBound >= Self.shortestElsewhere,
                    let fresh = known(String(decoding: bytes[word.lowerBound..<end], as: UTF8.self))
                {
                    splice.replace(word.lowerBound..<end, of: bytes, with: fresh.utf8)
                }
            }
            return splice.result(bytes)
        }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Texts longer than this (64 KiB) are not searched for identities inside them.
    static let longestText = 65_536

    /// The bytes an identity is made of where it stands inside a text.
    static func isWordByte(_ byte: UInt8) -> Bool {
        IdentifierMap.isTokenByte(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "+")
    }

    /// `url` with declared query parameters made fresh, and remembered identities replaced where a whole query
    /// value or path segment is one.
    func apply(url: String) -> String {
        let parts = URLParts(url)
        var changed = false
        let path = parts.path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            guard let known = known(percentDecode(segment)) else { return String(segment) }
            changed = true
            return percentEncode(known)
        }.joined(separator: "/")
        var query = parts.query
        if let raw = parts.query, !raw.isEmpty {
            let pairs = raw.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
                guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
                let name = percentDecode(pair[..<eq])
                let value = percentDecode(pair[pair.index(after: eq)...])
                let fresh: String?
                if let kind = keys.identityParameters[name], !value.isEmpty {
                    fresh = self.fresh(value, kind: kind)
                    remember(value, fresh!)
                } else {
                    fresh = known(value)
                }
                guard let fresh else { return String(pair) }
                changed = true
                return "\(pair[..<eq])=\(percentEncode(fresh))"
            }
            query = pairs.joined(separator: "&")
        }
        guard changed else { return url }
        return parts.origin + path + (query.map { "?\($0)" } ?? "")
    }

    private func remember(_ recorded: String, _ fresh: String) {
        guard recorded != fresh else { return }
        remembered.withLock { map in
            guard map[recorded] == nil else { return }
            if map.count >= Self.rememberedLimit { map.removeAll(keepingCapacity: true) }
            map[recorded] = fresh
        }
    }

    private func known(_ text: String) -> String? {
        guard text.count >= Self.shortestElsewhere else { return nil }
        return remembered.withLock { $0[text] }
    }
}

extension RecordedExchange {
    /// The exchange with its request and response each rewritten (ids, identities, secrets), the rest kept.
    public func rewritten(
        request rewrite: (HTTPRequest) -> HTTPRequest, response rewriteResponse: (HTTPResponse) -> HTTPResponse
    ) -> RecordedExchange {
        var out = self
        out.request = rewrite(request)
        out.response = rewriteResponse(response)
        return out
    }
}
