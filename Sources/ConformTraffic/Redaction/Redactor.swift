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
    let userPatterns: [TextPattern]
    let headerNames: Set<String>
    let phoneFields: Set<String>
    let tokenFields: Set<String>
    let keep: Set<String>
    /// The protocol's credential schemes, credential headers, digest headers and credential claims, lower-cased.
    let credentialSchemes: Set<String>
    let credentialHeaders: Set<String>
    let codeDigestHeaders: Set<String>
    let credentialClaims: [String]
    /// Digest header values (`applicationcode`) of kept application codes (first 10 hex digits of their SHA-256).
    let keptCodeHashes: Set<String>
    /// Credentials seen in headers, so the same value elsewhere (a body's `from`, a JWT claim) gets the same pseudonym.
    let knownSecrets = Mutex(KnownSecrets())
    /// The credentials of the profile's roles replaced so far, in the order met (``redactedCredentials``).
    let roled = Mutex((list: [RedactedCredential](), set: Set<RedactedCredential>()))
    /// How many are in ``roled``: read on every exchange written, so the metadata is rewritten only when it grew.
    let roledCount = Atomic<Int>(0)
    let roles: [ProtocolProfile.CredentialRole]
    /// The profile's phone lookup query (`type=PHONE&identifier=…`), its names and kind lower-cased.
    let phoneLookup: (kind: String, phone: String, identifier: String)?

    /// The profile's bases alone, which tell the base a request path belongs to (a credential's role by path).
    private let basePaths: ProtocolProfile
    /// For each credential scheme (lower-cased), the roles that `Authorization` places of that scheme name, in the
    /// order of ``roles``, with the base each is limited to: ``ProtocolProfile/credentialRole(scheme:path:in:bases:)``
    /// compiled once.
    private let authorizationRoles: [String: [(base: String?, role: ProtocolProfile.CredentialRole)]]
    /// The query parameter names a URL must have for ``redact(query:)`` to change it, lower-cased bytes: the
    /// credential parameters and the phone lookup's kind.
    private let queryNames: [[UInt8]]
    /// `Authorization` values of the protocol's credential schemes as redacted, by value and the base of the path
    /// they were sent to (which decides the role): a client sends the same application code on every exchange. What
    /// a first redaction records (the credential met, its role) is recorded then; the same value redacts alike every
    /// later time. Emptied when full, like the pseudonyms' table.
    private let authorizationMemo = Mutex<[AuthorizationKey: String]>([:])

    private struct AuthorizationKey: Hashable {
        let value: String
        /// The base the request's path belongs to; `nil` inside for a path of no base, `nil` outside for a response.
        let base: String??
    }

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
        self.basePaths = ProtocolProfile(name: "", bases: policy.bases)
        var authorizationRoles: [String: [(base: String?, role: ProtocolProfile.CredentialRole)]] = [:]
        for role in roles {
            for place in role.places {
                guard case .authorization(let scheme, let base) = place else { continue }
                authorizationRoles[scheme.lowercased(), default: []].append((base, role))
            }
        }
        self.authorizationRoles = authorizationRoles
        self.queryNames =
            (RedactionPolicy.secretQueryKeys.map { $0.lowercased() } + [phoneLookup?.kind].compactMap { $0 })
            .map { Array($0.utf8) }
    }

    /// The role of the credential in `Authorization: <scheme> …` of a request to `url`: the first of ``roles`` with
    /// such a place on any path or on the base the path belongs to.
    private func authorizationRole(scheme lower: String, base: String?) -> ProtocolProfile.CredentialRole? {
        authorizationRoles[lower]?.first { $0.base == nil || $0.base == base }?.role
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
        guard let mark = url.utf8.firstIndex(of: UInt8(ascii: "?")), mayRedact(queryOf: url) else { return url }
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

    /// Whether any query parameter of `url` may be one ``redact(query:)`` replaces, or names a phone lookup, read
    /// over its bytes: `false` only when every name is ASCII without escapes and none is a credential parameter or
    /// the lookup's kind, so the URL is kept without splitting it.
    private func mayRedact(queryOf url: String) -> Bool {
        var url = url
        return url.withUTF8 { bytes in
            guard var index = bytes.firstIndex(of: UInt8(ascii: "?")) else { return false }
            index += 1
            while index < bytes.count, bytes[index] != UInt8(ascii: "#") {
                let start = index
                while index < bytes.count,
                    ![UInt8(ascii: "&"), UInt8(ascii: "="), UInt8(ascii: "#")].contains(bytes[index])
                {
                    if bytes[index] == UInt8(ascii: "%") || bytes[index] >= 0x80 { return true }
                    index += 1
                }
                let name = UnsafeBufferPointer(rebasing: bytes[start..<index])
                if queryNames.contains(where: { Self.equalIgnoringASCIICase(name, $0) }) { return true }
                while index < bytes.count, bytes[index] != UInt8(ascii: "&"), bytes[index] != UInt8(ascii: "#") {
                    index += 1
                }
                if index < bytes.count, bytes[index] == UInt8(ascii: "&") { index += 1 }
            }
            // A `#` followed by a combining mark is no fragment mark to the splitting that follows: let it decide.
            return index + 1 < bytes.count && bytes[index + 1] >= 0x80
        }
    }

    private static func equalIgnoringASCIICase(_ bytes: UnsafeBufferPointer<UInt8>, _ lower: [UInt8]) -> Bool {
        guard bytes.count == lower.count else { return false }
        for (byte, expected) in zip(bytes, lower) {
            let folded = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            if folded != expected { return false }
        }
        return true
    }

    private func redact(authorization value: String, url: String?) -> String {
        let base = url.map { basePaths.baseName(forPath: URLParts($0).path) }
        let key = AuthorizationKey(value: value, base: base)
        if let known = authorizationMemo.withLock({ $0[key] }) { return known }
        let trimmed = value.trimmingWhitespace
        guard let space = trimmed.firstIndex(of: " ") else { return pseudonyms.opaque(trimmed) }
        let scheme = trimmed[..<space]
        let secret = trimmed[trimmed.index(after: space)...].trimmingWhitespace
        if keep.contains(secret) { return value }
        switch scheme.lowercased() {
        case let lower where credentialSchemes.contains(lower):
            let role = base.flatMap { authorizationRole(scheme: lower, base: $0) }
            let redacted = "\(scheme) \(credential(secret, role: role))"
            authorizationMemo.withLock { memo in
                if memo.count >= PseudonymMemo.capacity { memo.removeAll(keepingCapacity: true) }
                memo[key] = redacted
            }
            return redacted
        case "bearer" where secret.split(separator: ".", omittingEmptySubsequences: false).count == 3:
            return "\(scheme) \(jwt(secret))"
        default:
            return "\(scheme) \(pseudonyms.opaque(secret))"
        }
    }

    func credential(_ secret: String, role: ProtocolProfile.CredentialRole? = nil) -> String {
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

    func jwt(_ token: String) -> String {
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
}
