import ConformCore
import ConformCrypto
import Foundation
import Synchronization

/// Applies a ``RedactionPolicy`` with one secret key: the same secret always becomes the same pseudonym.
public final class Redactor: Sendable {
    /// How pseudonyms are derived, as written to `meta.json`.
    public static let scheme =
        "HMAC-SHA256 of the secret under a per-recording random key (never stored), hex-truncated"

    public let policy: RedactionPolicy
    let pseudonyms: Pseudonymizer
    private let userPatterns: [TextPattern]
    private let headerNames: Set<String>
    private let phoneFields: Set<String>
    private let tokenFields: Set<String>
    private let keep: Set<String>
    /// The protocol's credential schemes, credential headers, digest headers and credential claims, lower-cased.
    private let credentialSchemes: Set<String>
    private let credentialHeaders: Set<String>
    private let codeDigestHeaders: Set<String>
    private let credentialClaims: [String]
    /// Digest header values (`applicationcode`) of kept application codes (first 10 hex digits of their SHA-256).
    private let keptCodeHashes: Set<String>
    /// Credentials seen in headers, so the same value elsewhere (a body's `from`, a JWT claim) gets the same pseudonym.
    private let knownSecrets = Mutex(KnownSecrets())
    /// The credentials of the profile's roles replaced so far, in the order met (``redactedCredentials``).
    private let roled = Mutex((list: [RedactedCredential](), set: Set<RedactedCredential>()))
    /// How many are in ``roled``: read on every exchange written, so the metadata is rewritten only when it grew.
    private let roledCount = Atomic<Int>(0)
    private let roles: [ProtocolProfile.CredentialRole]
    /// The profile's phone lookup query (`type=PHONE&identifier=…`), its names and kind lower-cased.
    private let phoneLookup: (kind: String, phone: String, identifier: String)?

    /// A redactor with a fresh random key; invalid user patterns are skipped (validate policies when loading them).
    public convenience init(policy: RedactionPolicy) {
        self.init(policy: policy, digest: HMACKeyedDigest(key: randomKey()))
    }

    init(policy: RedactionPolicy, digest: any KeyedDigest) {
        self.policy = policy
        self.pseudonyms = Pseudonymizer(digest: digest)
        self.userPatterns = policy.patterns.compactMap { try? TextPattern($0) }
        self.headerNames = Set(policy.headers.map { $0.lowercased() })
        self.phoneFields = Set(policy.phoneFields.map { $0.lowercased() })
        self.tokenFields = Set(policy.tokenFields.map { $0.lowercased() })
        self.keep = Set(policy.keep)
        self.credentialSchemes = Set(policy.protocolKeys.credentialSchemes.map { $0.lowercased() })
        self.credentialHeaders = Set(policy.protocolKeys.credentialHeaders.map { $0.lowercased() })
        self.codeDigestHeaders = Set(policy.protocolKeys.codeDigestHeaders.map { $0.lowercased() })
        self.credentialClaims = policy.protocolKeys.credentialClaims
        self.roles = policy.protocolKeys.credentialRoles
        self.phoneLookup = policy.protocolKeys.phoneLookup.map {
            ($0.kindParameter.lowercased(), $0.phoneKind.lowercased(), $0.identifierParameter.lowercased())
        }
        self.keptCodeHashes = Set(policy.keep.map { String(Hex.encode(SHA256.hash($0)).prefix(10)) })
    }

    /// The exchange with every secret in URL, headers and bodies replaced.
    public func redact(_ exchange: RecordedExchange) -> RecordedExchange {
        var out = exchange
        out.request = redact(exchange.request)
        out.response = redact(exchange.response)
        return out
    }

    public func redact(_ request: HTTPRequest) -> HTTPRequest {
        var out = request
        out.headerFields = redact(headers: request.headerFields, url: request.url)
        out.url = redact(text: redact(query: request.url))
        out.body = redact(body: request.body)
        if out.body.count != request.body.count, out.headerFields["Content-Length"] != nil {
            out.headerFields["Content-Length"] = String(out.body.count)
        }
        return out
    }

    public func redact(_ response: HTTPResponse) -> HTTPResponse {
        var out = response
        out.headerFields = redact(headers: response.headerFields)
        out.body = redact(body: response.body)
        if out.body.count != response.body.count, out.headerFields["Content-Length"] != nil {
            out.headerFields["Content-Length"] = String(out.body.count)
        }
        return out
    }

    // MARK: headers

    /// `headers` redacted; `url` is the request's (`nil` for a response), whose path tells a credential's role.
    func redact(headers: HTTPFields, url: String? = nil) -> HTTPFields {
        var out = HTTPFields()
        for field in headers {
            out.append(name: field.name, value: redact(header: field.name, value: field.value, url: url))
        }
        return out
    }

    private func redact(header name: String, value: String, url: String?) -> String {
        if keep.contains(value) { return value }
        switch name.lowercased() {
        case "authorization", "proxy-authorization":
            return redact(authorization: value, url: url)
        case let lower where credentialHeaders.contains(lower):
            return credential(value, role: ProtocolProfile.credentialRole(header: name, in: roles))
        case let lower where codeDigestHeaders.contains(lower):
            return keptCodeHashes.contains(value.lowercased()) ? value : pseudonyms.sameLengthHex(value)
        case "cookie":
            return redact(cookies: value, separator: ";", all: true)
        case "set-cookie":
            // Only the first pair is the cookie; the rest are attributes (Path, Expires, HttpOnly).
            return redact(cookies: value, separator: ";", all: false)
        case let lower where RedactionPolicy.secretHeaders.contains(lower):
            return credential(value)
        case let lower where headerNames.contains(lower):
            return pseudonyms.opaque(value)
        default:
            return redact(text: value)
        }
    }

    /// `a=1; b=2` with every value (or only the first, for `Set-Cookie`) replaced; names are kept.
    private func redact(cookies value: String, separator: Character, all: Bool) -> String {
        var parts = value.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
        for i in parts.indices where all || i == 0 {
            guard let eq = parts[i].firstIndex(of: "=") else { continue }
            let cookie = String(parts[i][parts[i].index(after: eq)...])
            if cookie.isEmpty || keep.contains(cookie) { continue }
            parts[i] = String(parts[i][...eq]) + pseudonyms.opaque(cookie)
        }
        return parts.joined(separator: String(separator))
    }

    /// A URL with the values of credential query parameters replaced, and the identifier of a query that names
    /// a phone (the profile's phone lookup, e.g. `type=PHONE&identifier=…`) replaced by a phone pseudonym.
    func redact(query url: String) -> String {
        guard let mark = url.utf8.firstIndex(of: UInt8(ascii: "?")) else { return url }
        let head = url[...mark]
        var fragment = ""
        var query = String(url[url.index(after: mark)...])
        if let hash = query.firstIndex(of: "#") {
            fragment = String(query[hash...])
            query = String(query[..<hash])
        }
        var pairs = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> (String, String?) in
            guard let eq = pair.firstIndex(of: "=") else { return (String(pair), nil) }
            return (String(pair[..<eq]), String(pair[pair.index(after: eq)...]))
        }
        func key(_ name: String) -> String {
            (name.utf8.contains(UInt8(ascii: "%")) ? name.removingPercentEncoding ?? name : name).lowercased()
        }
        let keys = pairs.map { key($0.0) }
        let lookup = phoneLookup
        let namesPhone =
            lookup.map { lookup in
                pairs.indices.contains { keys[$0] == lookup.kind && pairs[$0].1?.lowercased() == lookup.phone }
            } ?? false
        var changed = false
        for i in pairs.indices {
            guard let value = pairs[i].1, !value.isEmpty, !keep.contains(value) else { continue }
            if RedactionPolicy.secretQueryKeys.contains(keys[i]) {
                pairs[i].1 = credential(value)
                changed = true
            } else if namesPhone, keys[i] == lookup?.identifier {
                pairs[i].1 = pseudonyms.phone(value)
                changed = true
            }
        }
        guard changed else { return url }
        let rebuilt: [String] = pairs.map { name, value in value.map { "\(name)=\($0)" } ?? name }
        return String(head) + rebuilt.joined(separator: "&") + fragment
    }

    private func redact(authorization value: String, url: String?) -> String {
        let trimmed = value.trimmingWhitespace
        guard let space = trimmed.firstIndex(of: " ") else { return pseudonyms.opaque(trimmed) }
        let scheme = trimmed[..<space]
        let secret = trimmed[trimmed.index(after: space)...].trimmingWhitespace
        if keep.contains(secret) { return value }
        switch scheme.lowercased() {
        case let lower where credentialSchemes.contains(lower):
            let role = url.flatMap {
                ProtocolProfile.credentialRole(
                    scheme: String(scheme), path: URLParts($0).path, in: roles, bases: policy.bases)
            }
            return "\(scheme) \(credential(secret, role: role))"
        case "bearer" where secret.split(separator: ".", omittingEmptySubsequences: false).count == 3:
            return "\(scheme) \(jwt(secret))"
        default:
            return "\(scheme) \(pseudonyms.opaque(secret))"
        }
    }

    private func credential(_ secret: String, role: ProtocolProfile.CredentialRole? = nil) -> String {
        if keep.contains(secret) || Pseudonymizer.isPseudonym(secret) { return secret }
        let pseudonym = pseudonyms.credential(secret)
        if secret.count >= KnownSecrets.minimumLength {
            knownSecrets.withLock { $0.insert(secret, pseudonym: pseudonym) }
        }
        if let role {
            let met = RedactedCredential(role: role.name, pseudonym: pseudonym)
            roled.withLock { roled in
                guard roled.set.insert(met).inserted else { return }
                roled.list.append(met)
                roledCount.add(1, ordering: .releasing)
            }
        }
        return pseudonym
    }

    /// Makes `secret` a known credential before any exchange carries it in a header: replaced by its credential
    /// pseudonym wherever text holds it, whatever order exchanges are written in. Not named as met in metadata.
    public func learn(credential secret: String) {
        if keep.contains(secret) || Pseudonymizer.isPseudonym(secret) || secret.count < KnownSecrets.minimumLength {
            return
        }
        let pseudonym = pseudonyms.credential(secret)
        knownSecrets.withLock { $0.insert(secret, pseudonym: pseudonym) }
    }

    /// The pseudonym this redactor gives `secret` as a credential (`nil` when it keeps it: a public value or a
    /// pseudonym already), without recording it as met: how `record --check` matches the codes it is told.
    public func pseudonym(ofCredential secret: String) -> String? {
        if keep.contains(secret) || Pseudonymizer.isPseudonym(secret) { return nil }
        return pseudonyms.credential(secret)
    }

    /// The credentials of the profile's roles replaced so far, in the order first met: what a recording's metadata
    /// names (never the clear values).
    public var redactedCredentials: [RedactedCredential] { roled.withLock { $0.list } }

    /// How many ``redactedCredentials`` there are (cheap: one atomic read).
    public var redactedCredentialCount: Int { roledCount.load(ordering: .acquiring) }

    private func jwt(_ token: String) -> String {
        pseudonyms.jwt(token) { claims in
            var redacted = redact(json: claims)
            if case .object(var object) = redacted {
                for claim in credentialClaims {
                    if let key = object[claim]?.stringValue {
                        object[claim] = .string(
                            credential(key, role: ProtocolProfile.credentialRole(claim: claim, in: roles)))
                    }
                }
                redacted = .object(object)
            }
            return redacted
        }
    }

    // MARK: bodies and text

    func redact(body: Data) -> Data {
        guard !body.isEmpty, let text = String(validating: body, as: UTF8.self) else { return body }
        let first = text.utf8.first { !Self.isJSONSpace($0) }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "["), let value = try? JSONValue.parse(body) {
            var changed = false
            let redacted = redact(node: value, at: Place(), changed: &changed)
            return changed ? Data(redacted.serialized().utf8) : body
        }
        let redacted = redact(text: text)
        return redacted == text ? body : Data(redacted.utf8)
    }

    func redact(json value: JSONValue) -> JSONValue {
        var changed = false
        return redact(node: value, at: Place(), changed: &changed)
    }

    /// Where a node sits: its concrete path (kept only when the policy has JSON paths to match), its own key, and
    /// for an array element the key of the array.
    private struct Place {
        var path: JSONPath?
        var key: String?
        var arrayKey: String?

        func child(key: String, tracking: Bool) -> Place {
            Place(path: tracking ? (path ?? JSONPath()).appending(key: key) : nil, key: key, arrayKey: nil)
        }

        func element(_ index: Int, tracking: Bool) -> Place {
            Place(path: tracking ? (path ?? JSONPath()).appending(index: index) : nil, key: nil, arrayKey: key)
        }
    }

    /// `node` with every secret replaced; `changed` is set when anything was.
    private func redact(node: JSONValue, at place: Place, changed: inout Bool) -> JSONValue {
        if let replaced = replacement(for: node, at: place) {
            if replaced != node { changed = true }
            return replaced
        }
        let tracking = !policy.jsonPaths.isEmpty
        switch node {
        case .array(let items):
            var out = items
            for i in items.indices {
                out[i] = redact(node: items[i], at: place.element(i, tracking: tracking), changed: &changed)
            }
            return .array(out)
        case .object(let object):
            var out = object
            for (key, value) in object {
                out[key] = redact(node: value, at: place.child(key: key, tracking: tracking), changed: &changed)
            }
            return .object(out)
        default:
            return node
        }
    }

    /// What replaces `node` (a leaf, or a whole subtree a policy path names), or `nil` to look inside it.
    private func replacement(for node: JSONValue, at place: Place) -> JSONValue? {
        if !policy.jsonPaths.isEmpty {
            let path = place.path ?? JSONPath()
            if policy.jsonPaths.contains(where: { $0.matches(path) }) {
                switch node {
                case .null: return node
                case .string(let s): return keep.contains(s) ? node : .string(pseudonyms.opaque(s))
                default: return .string(pseudonyms.opaque(node.serialized()))
                }
            }
        }
        // An element of an array under a phone field (`"phones": ["+385…"]`) is a phone too.
        if let parent = place.arrayKey, phoneFields.contains(parent.lowercased()) {
            switch node {
            case .string(let s) where Self.isPhoneLike(s) && !keep.contains(s): return .string(pseudonyms.phone(s))
            case .int(let i) where i >= 100_000: return .string(pseudonyms.phone(String(i)))
            default: break
            }
        }
        guard let name = place.key else {
            if case .string(let s) = node { return .string(redact(text: s)) }
            return nil
        }
        let lower = name.lowercased()
        switch node {
        case .string(let s) where phoneFields.contains(lower) && Self.isPhoneLike(s) && !keep.contains(s):
            return .string(pseudonyms.phone(s))
        case .int(let i) where phoneFields.contains(lower) && i >= 100_000:
            return .string(pseudonyms.phone(String(i)))
        case .string(let s) where tokenFields.contains(lower) && !s.isEmpty && !keep.contains(s):
            return .string(pseudonyms.token(s))
        case .string(let s):
            return .string(redact(text: s))
        default:
            return nil
        }
    }

    private static func isJSONSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    static func isPhoneLike(_ s: String) -> Bool {
        let digits = s.filter(\.isASCIIDigit).count
        return digits >= 6 && s.allSatisfy { $0.isASCIIDigit || " +-().".contains($0) }
    }

    /// Emails, phone numbers and JWTs that a URL or a form wrote percent-encoded (`user%40example.com`, twice
    /// `user%2540example.com`): found in the decoded text and replaced in the text's own form, encoded as they were.
    private func redact(encoded text: String) -> String {
        guard let decoded = PercentDecoded(text) else { return text }
        let plain = decoded.text
        typealias Finder = (matches: [Range<String.Index>], replacement: (Substring) -> String?)
        var finders: [Finder] = []
        if plain.containsBytes("eyJ") {
            finders.append(
                (TextPattern.jwt.matches(in: plain), { self.keep.contains(String($0)) ? nil : self.jwt(String($0)) }))
        }
        if policy.emailsInText, plain.containsBytes("@") {
            finders.append(
                (
                    TextPattern.email.matches(in: plain),
                    { self.keep.contains(String($0)) ? nil : self.pseudonyms.email(String($0)) }
                ))
        }
        if policy.phonesInText, plain.containsBytes("+") {
            finders.append(
                (
                    TextPattern.internationalPhone.matches(in: plain),
                    { self.keep.contains(String($0)) ? nil : self.pseudonyms.phone(String($0)) }
                ))
        }
        let known = knownSecrets.withLock { $0 }
        if !known.isEmpty {
            finders.append((known.ranges(in: plain), { known.pseudonym(of: String($0)) }))
        }
        return decoded.replacing(decoded.edits(finders, in: text), in: text)
    }

    /// Replaces known credentials, emails, international phone numbers and user patterns in free text.
    public func redact(text: String) -> String {
        var out = knownSecrets.withLock { $0.replacing(in: text) }
        if out.containsBytes("%") { out = redact(encoded: out) }
        if out.containsBytes("eyJ") {
            out = TextPattern.jwt.replacing(in: out) { keep.contains(String($0)) ? nil : jwt(String($0)) }
        }
        if policy.emailsInText, out.containsBytes("@") {
            out = TextPattern.email.replacing(in: out) {
                keep.contains(String($0)) ? nil : pseudonyms.email(String($0))
            }
        }
        if policy.phonesInText, out.containsBytes("+") || out.containsBytes("%2B") || out.containsBytes("%2b") {
            out = TextPattern.internationalPhone.replacing(in: out) {
                keep.contains(String($0)) ? nil : pseudonyms.phone(String($0))
            }
        }
        for pattern in userPatterns {
            out = pattern.replacing(in: out) { keep.contains(String($0)) ? nil : pseudonyms.opaque(String($0)) }
        }
        return out
    }
}
