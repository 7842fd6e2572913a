import ConformCore
import ConformCrypto
import Foundation
import Synchronization

/// Turns secrets into stable, recognisable pseudonyms: the same secret and key always give the same pseudonym.
public struct Pseudonymizer: Sendable {
    let digest: any KeyedDigest
    /// Pseudonyms already derived: a recording meets the same application code, token or email on exchange after
    /// exchange, and an HMAC costs more than a lookup. Memory only; never written.
    private let memo = PseudonymMemo()

    init(digest: any KeyedDigest) { self.digest = digest }

    /// Marks every pseudonym that is not shape-bound (credentials, tokens, opaque values).
    static let prefix = "redacted-"
    /// Domain of pseudonymous email addresses.
    static let emailDomain = "redacted.invalid"
    /// Leading digits of pseudonymous phone numbers (no real E.164 number starts with 0).
    static let phonePrefix = "000"
    /// `kid` of pseudonymous JWTs.
    public static let jwtKeyID = "conform-redacted"

    private func bytes(_ kind: String, _ value: String) -> [UInt8] {
        digest.mac(Array("\(kind)\u{0}\(value)".utf8))
    }

    func hex(_ kind: String, _ value: String, count: Int) -> String {
        guard value.utf8.count <= PseudonymMemo.longestValue else { return derivedHex(kind, value, count: count) }
        let key = PseudonymMemo.Key(kind: kind, value: value, count: count)
        if let known = memo.lookup(key) { return known }
        let derived = derivedHex(kind, value, count: count)
        memo.store(key, derived)
        return derived
    }

    /// `count` hex digits of the HMAC of `kind` and `value`, then of the HMAC of that, and so on.
    private func derivedHex(_ kind: String, _ value: String, count: Int) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        var material = bytes(kind, value)
        while true {
            out += Hex.encode(material).utf8.prefix(count - out.count)
            if out.count >= count { return String(decoding: out, as: UTF8.self) }
            material = digest.mac(material)
        }
    }

    /// Whether `value` is a pseudonym a redaction made: it carries the pseudonyms' prefix or email domain.
    public static func isPseudonym(_ value: String) -> Bool {
        value.hasPrefix(prefix) || value.hasSuffix("@" + emailDomain)
    }

    /// Application codes and API keys (`App` values, `AppCode` headers).
    func credential(_ value: String) -> String {
        Self.isPseudonym(value) ? value : Self.prefix + hex("credential", value, count: 16)
    }

    func opaque(_ value: String) -> String {
        Self.isPseudonym(value) ? value : Self.prefix + hex("opaque", value, count: 16)
    }

    /// Push service tokens.
    func token(_ value: String) -> String {
        Self.isPseudonym(value) ? value : Self.prefix + "token-" + hex("token", value, count: 24)
    }

    /// Hex of the same length (the `applicationcode` hash header).
    func sameLengthHex(_ value: String) -> String { hex("hexhash", value, count: max(value.count, 4)) }

    func email(_ value: String) -> String {
        if value.lowercased().hasSuffix("@" + Self.emailDomain) { return value }
        return "user-" + hex("email", value.lowercased(), count: 10) + "@" + Self.emailDomain
    }

    /// Digits stay digits and keep their count (at least 7); a leading `+` stays.
    func phone(_ value: String) -> String {
        let trimmed = value.trimmingWhitespace
        // `%2B385…` is `+385…` in a URL: the 2 of the escape is not a digit of the number.
        let encoded = trimmed.lowercased().hasPrefix("%2b")
        let digits = (encoded ? String(trimmed.dropFirst(3)) : trimmed).filter(\.isASCIIDigit)
        let plus = encoded ? "%2B" : trimmed.hasPrefix("+") ? "+" : ""
        if digits.hasPrefix(Self.phonePrefix) { return value }
        let count = max(digits.count, 7)
        var material = bytes("phone", digits)
        var out = Self.phonePrefix
        while out.count < count {
            for byte in material where out.count < count { out.append(Character(String(byte % 10))) }
            material = digest.mac(material)
        }
        return plus + out
    }

    /// A JWT-shaped token: marker header, claims kept but redacted, pseudonymous signature.
    func jwt(_ token: String, redactClaims: (JSONValue) -> JSONValue) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 3, let headerData = Base64URL.decode(String(parts[0])).map({ Data($0) }),
            let header = try? JSONValue.parse(headerData), header["kid"]?.stringValue == Self.jwtKeyID
        {
            return token
        }
        var claims: JSONValue = [:]
        if parts.count == 3, let data = Base64URL.decode(String(parts[1])).map({ Data($0) }),
            let value = try? JSONValue.parse(data)
        {
            claims = redactClaims(value)
        }
        var header: JSONValue = ["alg": "HS256", "typ": "JWT", "kid": .string(Self.jwtKeyID)]
        // The original `kid` names a key, it is not one: kept, so a replay given the key re-signs under the same name.
        if parts.count == 3, let data = Base64URL.decode(String(parts[0])).map({ Data($0) }),
            let original = try? JSONValue.parse(data), let kid = original["kid"]?.stringValue,
            (1...256).contains(kid.utf8.count), kid.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F }),
            case .object(var members) = header
        {
            members["recordedKid"] = .string(kid)
            header = .object(members)
        }
        let signature = bytes("jwt-signature", token)
        return Base64URL.encode(Array(header.serialized().utf8)) + "."
            + Base64URL.encode(Array(claims.serialized().utf8)) + "." + Base64URL.encode(signature)
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// A bounded table of derived pseudonyms, emptied when full (so a recording of millions of distinct secrets keeps a
/// fixed footprint and simply derives again).
final class PseudonymMemo: Sendable {
    /// Longer values are derived each time rather than kept.
    static let longestValue = 512
    /// Entries kept at most.
    static let capacity = 4096

    struct Key: Hashable, Sendable {
        let kind: String
        let value: String
        let count: Int
    }

    private let table = Mutex<[Key: String]>([:])

    func lookup(_ key: Key) -> String? { table.withLock { $0[key] } }

    func store(_ key: Key, _ pseudonym: String) {
        table.withLock { table in
            if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
            table[key] = pseudonym
        }
    }
}
