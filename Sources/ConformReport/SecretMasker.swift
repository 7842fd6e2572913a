import ConformCore
import Foundation

/// Hides credentials in header values and text for every report: keeps the auth scheme and at most the last
/// four characters.
///
/// Masking is idempotent: a value already masked (it starts with ``dots``) is kept as it is and never learned as a
/// secret, so reports rebuilt from a masked JSON report (`conform merge`) read exactly like the original ones.
public struct SecretMasker: Sendable, Hashable {
    /// What replaces the hidden part of a secret.
    public static let dots = "••••"
    /// Secrets shorter than this are hidden in headers but not searched for in other text.
    public static let minimumLearnedLength = 8
    /// The characters a URL carries as they are (RFC 3986 unreserved).
    static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Secret values seen in headers, longest first, hidden wherever they appear in URLs, bodies and messages.
    public private(set) var secrets: [String]
    /// Headers whose whole value is a credential in the run's protocol (its profile's: Mobile Messaging's `AppCode`
    /// and `applicationcode`), lower-cased; masked beside those of any HTTP exchange.
    public private(set) var codeHeaders: Set<String> = []

    /// A masker that hides `secrets` wherever they appear, and the whole value of the headers `codeHeaders` names.
    public init(secrets: [String] = [], codeHeaders: [String] = []) {
        self.codeHeaders = Set(codeHeaders.map { $0.lowercased() })
        // A secret is also hidden where a URL or a form carries it percent-encoded.
        let written = secrets.flatMap { secret -> [String] in
            let encoded = secret.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? secret
            return encoded == secret ? [secret] : [secret, encoded]
        }
        self.secrets = Set(written.filter { $0.count >= Self.minimumLearnedLength && !$0.hasPrefix(Self.dots) }).sorted
        {
            ($0.count, $0) > ($1.count, $1)
        }
    }

    /// A masker that knows every credential the run was given (``RunResult/secrets``) and every secret sent or
    /// received in the headers and credential query parameters of its exchanges.
    public init(learningFrom result: RunResult) {
        var found = Set(result.secrets)
        let codeHeaders = Set(result.credentialHeaders.map { $0.lowercased() })
        // Suite by suite, one exchange at a time: a spooled exchange is read back and let go.
        for suite in result.suites {
            for step in suite.steps where step.hasExchange {
                found.formUnion(Self.secrets(of: step, codeHeaders: codeHeaders))
            }
        }
        self.init(secrets: Array(found), codeHeaders: result.credentialHeaders)
    }

    /// The secrets of one step's exchange: in its headers and in its URL's credential query parameters.
    static func secrets(of step: StepResult, codeHeaders: Set<String>) -> Set<String> {
        var found: Set<String> = []
        for fields in [step.request?.headerFields, step.response?.headerFields].compactMap({ $0 }) {
            for field in fields {
                found.formUnion(secretParts(name: field.name, value: field.value, codeHeaders: codeHeaders))
            }
        }
        if let url = step.request?.url { found.formUnion(queryCredentials(url)) }
        return found
    }

    /// The values of the credential query parameters of `url` (``ProtocolProfile/secretQueryKeys``), as written
    /// and decoded.
    static func queryCredentials(_ url: String) -> [String] {
        guard let mark = url.firstIndex(of: "?") else { return [] }
        let query = url[mark...].dropFirst().prefix { $0 != "#" }
        return query.split(separator: "&").flatMap { (pair: Substring) -> [String] in
            guard let eq = pair.firstIndex(of: "=") else { return [] }
            let name = String(pair[..<eq]), value = String(pair[pair.index(after: eq)...])
            guard ProtocolProfile.none.carriesCredential(query: name), !value.isEmpty else { return [] }
            let decoded = value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            return [value] + (decoded.map { [$0] } ?? [])
        }
    }

    /// How a header's value is treated.
    enum HeaderKind {
        case credential, code, cookie, setCookie, plain
    }

    /// How the header `name` is treated, `codeHeaders` (lower-cased) being the protocol's own credential headers.
    static func kind(of name: String, codeHeaders: Set<String> = []) -> HeaderKind {
        let n = name.lowercased()
        switch n {
        case "authorization", "proxy-authorization": return .credential
        case "cookie": return .cookie
        case "set-cookie", "set-cookie2": return .setCookie
        case _ where codeHeaders.contains(n): return .code
        default:
            let words = ["api-key", "apikey", "api_key", "token", "secret", "password", "passwd", "x-auth", "session"]
            return words.contains { n.contains($0) } ? .code : .plain
        }
    }

    /// The value of a header as the report shows it.
    public func header(name: String, value: String) -> String {
        switch Self.kind(of: name, codeHeaders: codeHeaders) {
        case .credential:
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            guard let space = trimmed.firstIndex(of: " ") else { return Self.hide(trimmed) }
            let scheme = String(trimmed[..<space])
            let credential = trimmed[space...].trimmingCharacters(in: .whitespaces)
            if scheme.lowercased() == "bearer" || credential.isEmpty { return scheme + " " + Self.dots }
            return scheme + " " + Self.hide(credential)
        case .code:
            return Self.hide(value.trimmingCharacters(in: .whitespaces))
        case .cookie:
            return Self.cookiePairs(value).map { $0.name.isEmpty ? Self.dots : "\($0.name)=\(Self.dots)" }.joined(
                separator: "; ")
        case .setCookie:
            var parts = value.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            guard !parts.isEmpty else { return value }
            let first = parts[0].trimmingCharacters(in: .whitespaces)
            let name = first.firstIndex(of: "=").map { String(first[..<$0]) } ?? ""
            parts[0] = name.isEmpty ? Self.dots : "\(name)=\(Self.dots)"
            return parts.joined(separator: ";")
        case .plain:
            return text(value)
        }
    }

    /// Text with JWT-looking tokens and learned secrets hidden.
    public func text(_ input: String) -> String {
        var out = Self.maskingJWTs(input)
        for secret in secrets where out.contains(secret) {
            out = out.replacingOccurrences(of: secret, with: Self.hide(secret))
        }
        return out
    }

    /// Whether a header, member or variable named `name` holds a credential in any protocol (`Authorization`,
    /// `apiKey`, `token`, `secret`, `password`, a cookie), or may (a name with `code` in it: an application, access
    /// or authorization code; a variable so named is hidden rather than risked).
    public static func isCredentialName(_ name: String) -> Bool {
        kind(of: name) != .plain || name.lowercased().contains("code")
    }

    /// A credential as reports show it: `••••` and at most its last four characters (see ``hide(_:)``).
    public static func masked(_ secret: String) -> String { hide(secret) }

    /// `••••` plus the last four characters when the secret is long enough (12+) that they give nothing away.
    static func hide(_ secret: String) -> String {
        if secret.hasPrefix(dots) { return secret }
        if secret.hasPrefix("eyJ") || secret.count < 12 { return dots }
        return dots + secret.suffix(4)
    }

    static func cookiePairs(_ value: String) -> [(name: String, value: String)] {
        value.split(separator: ";").map { pair in
            let p = pair.trimmingCharacters(in: .whitespaces)
            guard let eq = p.firstIndex(of: "=") else { return ("", p) }
            return (String(p[..<eq]), String(p[p.index(after: eq)...]))
        }
    }

    /// The parts of a header value that are secret, for hiding them elsewhere.
    static func secretParts(name: String, value: String, codeHeaders: Set<String>) -> [String] {
        switch kind(of: name, codeHeaders: codeHeaders) {
        case .credential:
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            guard let space = trimmed.firstIndex(of: " ") else { return [trimmed] }
            return [trimmed[space...].trimmingCharacters(in: .whitespaces)]
        case .code: return [value.trimmingCharacters(in: .whitespaces)]
        case .cookie: return cookiePairs(value).map(\.value)
        case .setCookie: return Array(cookiePairs(value).prefix(1).map(\.value))
        case .plain: return []
        }
    }

    /// Replaces `eyJ….….…` tokens (three base64url segments, the first a JSON header) with `(JWT ••••)`.
    static func maskingJWTs(_ input: String) -> String {
        let bytes = Array(input.utf8)
        guard bytes.count >= 3 else { return input }
        func isB64(_ b: UInt8) -> Bool {
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x5F
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        var changed = false
        while i < bytes.count {
            let startsToken =
                bytes[i] == 0x65 && i + 2 < bytes.count && bytes[i + 1] == 0x79 && bytes[i + 2] == 0x4A
                && (i == 0 || !isB64(bytes[i - 1]))
            if startsToken {
                var j = i
                var segments = 1
                var segmentLength = 0
                var firstLength = 0
                while j < bytes.count {
                    if isB64(bytes[j]) {
                        segmentLength += 1
                    } else if bytes[j] == 0x2E, segments < 3, segmentLength > 0 {
                        if segments == 1 { firstLength = segmentLength }
                        segments += 1
                        segmentLength = 0
                    } else {
                        break
                    }
                    j += 1
                }
                if segments == 3, firstLength >= 10 {
                    out += Array("(JWT \(dots))".utf8)
                    i = j
                    changed = true
                    continue
                }
            }
            out.append(bytes[i])
            i += 1
        }
        return changed ? String(decoding: out, as: UTF8.self) : input
    }
}
