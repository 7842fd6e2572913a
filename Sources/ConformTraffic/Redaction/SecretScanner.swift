import ConformCore
import ConformCrypto
import ConformDiagnostics
import Foundation

/// One unredacted secret found in a file, with its 1-based position and how to fix it.
public struct SecretFinding: Sendable, Hashable, CustomStringConvertible {
    /// The kind of secret; an open set.
    public struct Kind: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let email = Kind(rawValue: "email address")
        public static let phone = Kind(rawValue: "phone number")
        public static let authorization = Kind(rawValue: "App authorization value")
        public static let jwt = Kind(rawValue: "JSON Web Token")
        public static let pushToken = Kind(rawValue: "push service token")
        public static let credential = Kind(rawValue: "credential")
        public static let cookie = Kind(rawValue: "cookie")
    }

    public var file: String
    public var line: Int
    public var column: Int
    public var kind: Kind
    /// The start of the secret, the rest masked, so the report itself does not leak it.
    public var excerpt: String
    public var help: String

    /// The finding as a `secret.unredacted` diagnostic at its line and column.
    public var diagnostic: Diagnostic {
        Diagnostic(
            .secretUnredacted, file: file, mark: SourceMark(line: line, column: column),
            message: "unredacted \(kind.rawValue) '\(excerpt)'", help: help)
    }

    public var description: String { diagnostic.rendered(sourceLine: nil) }
}

/// Finds secret patterns that redaction would have replaced: the CI gate behind `conform scan`.
public struct SecretScanner: Sendable {
    /// Email domains that are not secrets (pseudonyms live in `redacted.invalid`).
    public var allowedEmailDomains: [String]
    /// Values that are public and never reported: the profile's and any added.
    public var keep: [String]
    /// The protocol's places of secrets, as patterns over a line (`nil` where the profile names none).
    let phoneField: TextPattern?
    let tokenField: TextPattern?
    let tokenFieldNames: [String]
    let credentialAuthorization: TextPattern?
    let credentialSchemes: [String]
    let phoneIdentifier: TextPattern?

    /// A scanner for traces of `profile`: what every exchange holds, and the profile's phone and token members,
    /// credential schemes and phone lookup; `keep` adds to the profile's public values.
    public init(
        profile: ProtocolProfile = .none, allowedEmailDomains: [String] = ["redacted.invalid"], keep: [String] = []
    ) {
        let keys = profile.redaction
        self.allowedEmailDomains = allowedEmailDomains
        self.keep = keys.publicValues + keep
        func names(_ list: [String]) -> String {
            list.map { NSRegularExpression.escapedPattern(for: $0) }.joined(separator: "|")
        }
        phoneField =
            keys.phoneFields.isEmpty
            ? nil
            : try? TextPattern(
                "\\\\?\"(?:\(names(keys.phoneFields)))\\\\?\"\\s*:\\s*\\[?\\s*\\\\?\"?(\\+?[0-9][0-9 ()-]{4,}[0-9])",
                caseInsensitive: true)
        tokenField =
            keys.tokenFields.isEmpty
            ? nil
            : try? TextPattern(
                "\\\\?\"(?:\(names(keys.tokenFields)))\\\\?\"\\s*:\\s*\\\\?\"([^\"\\\\]{8,})", caseInsensitive: true)
        tokenFieldNames = keys.tokenFields.map { $0.lowercased() }
        credentialAuthorization =
            keys.credentialSchemes.isEmpty
            ? nil : try? TextPattern("\\b(?:\(names(keys.credentialSchemes)))\\s+([A-Za-z0-9._~+/=-]{8,})")
        credentialSchemes = keys.credentialSchemes
        phoneIdentifier = keys.phoneLookup.flatMap {
            try? TextPattern(
                "[?&]\(NSRegularExpression.escapedPattern(for: $0.identifierParameter))=((?:%2B|\\+)?[0-9]{6,})(?=[&#\"\\s]|$)",
                caseInsensitive: true)
        }
    }

    /// Scans files and directories (recursively, skipping hidden entries) and returns every finding, in path order.
    public func scan(paths: [String]) throws(RecordingError) -> [SecretFinding] {
        try scanFiles(paths: paths).flatMap(\.findings)
    }

    /// Scans files and directories as ``scan(paths:)`` does, and returns every file read with its findings, in path
    /// order: a scan that read nothing judged nothing.
    public func scanFiles(paths: [String]) throws(RecordingError) -> [(file: String, findings: [SecretFinding])] {
        var findings: [(file: String, findings: [SecretFinding])] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw RecordingError(
                    file: path, message: "no such file or directory", help: "pass existing files or directories")
            }
            if isDirectory.boolValue {
                let entries = (try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? []
                for entry in entries.sorted() where !entry.split(separator: "/").contains(where: { $0.hasPrefix(".") })
                {
                    let full = (path as NSString).appendingPathComponent(entry)
                    var dir: ObjCBool = false
                    if FileManager.default.fileExists(atPath: full, isDirectory: &dir), !dir.boolValue {
                        findings.append((full, try scan(file: full)))
                    }
                }
            } else {
                findings.append((path, try scan(file: path)))
            }
        }
        return findings
    }

    /// Scans one file line by line; NUL bytes and invalid UTF-8 do not hide the text around them. A compressed or
    /// zipped HAR is scanned as the HAR it holds (lines of the unpacked text), so packing hides no secret.
    public func scan(file: String) throws(RecordingError) -> [SecretFinding] {
        let unpacked: Data?
        do {
            unpacked = try TraceFile.unpackedHAR(file)
        } catch {
            throw RecordingError(file: file, message: error.message, help: error.help)
        }
        if let unpacked { return scan(text: String(decoding: unpacked, as: UTF8.self), file: file) }
        let reader: LineReader
        do {
            reader = try LineReader(path: file, maxLineBytes: 256 << 20)
        } catch {
            throw RecordingError(file: file, message: "cannot read", help: "check permissions")
        }
        var findings: [SecretFinding] = []
        var number = 0
        while true {
            let line: LineReader.Line?
            do { line = try reader.next() } catch { break }
            guard let line else { break }
            number += 1
            findings += scan(line: String(decoding: line.bytes, as: UTF8.self), number: number, file: file)
        }
        return findings
    }

    /// Scans text held in memory (e.g. a HAR before it is written).
    public func scan(text: String, file: String) -> [SecretFinding] {
        var findings: [SecretFinding] = []
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            findings += scan(line: String(line), number: i + 1, file: file)
        }
        return findings
    }

    private static let queryCredential = try! TextPattern(
        "[?&](?:apikey|api_key|api-key|access_token|id_token|refresh_token|client_secret|token)=([^&#\\s\"\\\\]{4,})",
        caseInsensitive: true)
    /// A secret header as a recording writes it (`["Cookie","a=1"]`) or a HAR does (`"name":"Cookie","value":…`).
    private static let secretHeader = try! TextPattern(
        "(?:\\[\\s*\"|\"name\"\\s*:\\s*\")(cookie|set-cookie|x-api-key|api-key|apikey|x-auth-token)\"\\s*,\\s*(?:\"value\"\\s*:\\s*)?\"([^\"]*)\"",
        caseInsensitive: true)
    private static let fcmToken = try! TextPattern("[A-Za-z0-9_-]{11,}:APA91b[A-Za-z0-9_-]{20,}")

    func scan(line: String, number: Int, file: String) -> [SecretFinding] {
        // Candidates from every pattern, in the patterns' order of precedence; overlaps are settled once at the
        // end (checking each new one against all before it is quadratic on a line with many secrets).
        var candidates: [(range: Range<String.Index>, kind: SecretFinding.Kind, help: String, rank: Int)] = []
        func add(_ range: Range<String.Index>, _ kind: SecretFinding.Kind, _ help: String) {
            candidates.append((range, kind, help, candidates.count))
        }
        let keepSet = Set(keep)
        // Cheap tests first: a pattern runs only where its anchor text occurs (each regex pass bridges the line).
        let lower = line.lowercased()
        let hasDigit = line.utf8.contains { (0x30...0x39).contains($0) }
        if line.containsBytes("eyJ") {
            for range in TextPattern.jwt.matches(in: line) where !Self.isRedactedJWT(line[range]) {
                add(range, .jwt, "record with redaction on, or replace the token by a pseudonym before committing")
            }
        }
        if line.containsBytes("@") {
            for range in TextPattern.email.matches(in: line) {
                let domain = line[range].split(separator: "@").last.map { $0.lowercased() } ?? ""
                if allowedEmailDomains.contains(where: { domain == $0 || domain.hasSuffix("." + $0) }) { continue }
                add(range, .email, "replace it by a pseudonym such as user-1234@\(Pseudonymizer.emailDomain)")
            }
        }
        // What a URL or a form wrote percent-encoded (`user%40example.com`, `%252B385…`), found decoded.
        if line.containsBytes("%"), let decoded = PercentDecoded(line) {
            let view = line.utf8
            func written(_ range: Range<String.Index>) -> Range<String.Index>? {
                guard let bytes = decoded.writtenRange(range),
                    view[view.index(view.startIndex, offsetBy: bytes.lowerBound)...].prefix(bytes.count).contains(
                        UInt8(ascii: "%"))
                else { return nil }
                let lower = view.index(view.startIndex, offsetBy: bytes.lowerBound)
                return lower..<view.index(lower, offsetBy: bytes.count)
            }
            for range in decoded.text.containsBytes("@") ? TextPattern.email.matches(in: decoded.text) : [] {
                let domain = decoded.text[range].split(separator: "@").last.map { $0.lowercased() } ?? ""
                if allowedEmailDomains.contains(where: { domain == $0 || domain.hasSuffix("." + $0) }) { continue }
                if let range = written(range) {
                    add(range, .email, "replace it by a pseudonym such as user-1234@\(Pseudonymizer.emailDomain)")
                }
            }
            for range in decoded.text.containsBytes("+") ? TextPattern.internationalPhone.matches(in: decoded.text) : []
            {
                if let range = written(range) {
                    add(range, .phone, "replace it by a pseudonym starting with +\(Pseudonymizer.phonePrefix)")
                }
            }
        }
        for range in hasDigit ? phoneField?.captures(in: line, group: 1) ?? [] : [] {
            let digits = line[range].filter(\.isASCIIDigit)
            if digits.hasPrefix(Pseudonymizer.phonePrefix) || digits.count < 6 { continue }
            add(range, .phone, "replace it by a pseudonym starting with \(Pseudonymizer.phonePrefix) (digits only)")
        }
        if hasDigit, line.containsBytes("+") || lower.containsBytes("%2b") {
            for range in TextPattern.internationalPhone.matches(in: line) {
                add(range, .phone, "replace it by a pseudonym starting with +\(Pseudonymizer.phonePrefix)")
            }
        }
        if let credentialAuthorization, credentialSchemes.contains(where: { line.containsBytes($0) }) {
            for range in credentialAuthorization.captures(in: line, group: 1) {
                let value = String(line[range])
                if Pseudonymizer.isPseudonym(value) || keepSet.contains(value) { continue }
                guard value.contains(where: { $0.isASCIIDigit || $0 == "-" }) else { continue }
                add(range, .authorization, "replace the application code or API key by a pseudonym (redacted-…)")
            }
        }
        if line.containsBytes("APA91b") {
            for range in Self.fcmToken.matches(in: line) {
                add(range, .pushToken, "replace the token by a pseudonym (redacted-token-…)")
            }
        }
        let tokenRanges =
            tokenFieldNames.contains(where: { lower.containsBytes($0) })
            ? tokenField?.captures(in: line, group: 1) ?? [] : []
        for range in tokenRanges where !line[range].hasPrefix(Pseudonymizer.prefix) {
            add(range, .pushToken, "replace the token by a pseudonym (redacted-token-…)")
        }
        if line.containsBytes("=") {
            for range in Self.queryCredential.captures(in: line, group: 1)
            where !Pseudonymizer.isPseudonym(String(line[range])) && !keepSet.contains(String(line[range])) {
                add(range, .credential, "replace the query parameter's value by a pseudonym (redacted-…)")
            }
            for range in phoneIdentifier?.captures(in: line, group: 1) ?? [] {
                let digits = line[range].lowercased().replacingOccurrences(of: "%2b", with: "").filter(\.isASCIIDigit)
                if digits.hasPrefix(Pseudonymizer.phonePrefix) { continue }
                add(
                    range, .phone,
                    "replace the identifier by a phone pseudonym starting with \(Pseudonymizer.phonePrefix)")
            }
        }
        let headerMatches =
            ["cookie", "api-key", "apikey", "auth-token"].contains { lower.containsBytes($0) }
            ? Self.secretHeader.regex.matches(in: line, range: NSRange(line.startIndex..., in: line)) : []
        for match in headerMatches {
            guard let nameRange = Range(match.range(at: 1), in: line), let range = Range(match.range(at: 2), in: line)
            else { continue }
            let name = line[nameRange].lowercased()
            let value = String(line[range])
            let secrets: [String]
            if name == "cookie" || name == "set-cookie" {
                let all = value.split(separator: ";")
                let pairs = name == "cookie" ? all : Array(all.prefix(1))
                secrets = pairs.compactMap { $0.split(separator: "=", maxSplits: 1).dropFirst().first.map(String.init) }
            } else {
                secrets = [value]
            }
            if secrets.contains(where: { !$0.isEmpty && !Pseudonymizer.isPseudonym($0) && !keepSet.contains($0) }) {
                add(
                    range, name.hasSuffix("cookie") ? .cookie : .credential,
                    "record with redaction on, or replace the \(line[nameRange]) value by a pseudonym (redacted-…)")
            }
        }
        var found: [(Range<String.Index>, SecretFinding.Kind, String)] = []
        var keptEnd = line.startIndex
        let ordered = candidates.sorted {
            ($0.range.lowerBound, $0.rank) < ($1.range.lowerBound, $1.rank)
        }
        for candidate in ordered where found.isEmpty || candidate.range.lowerBound >= keptEnd {
            found.append((candidate.range, candidate.kind, candidate.help))
            keptEnd = candidate.range.upperBound
        }
        // Columns in one pass over the line, in finding order (a distance from the start per finding is quadratic).
        var column = 1
        var cursor = line.startIndex
        return found.map { range, kind, help in
            let secret = line[range]
            column += line.distance(from: cursor, to: range.lowerBound)
            cursor = range.lowerBound
            return SecretFinding(
                file: file, line: number, column: column, kind: kind,
                excerpt: String(secret.prefix(3)) + String(repeating: "*", count: min(max(secret.count - 3, 0), 8)),
                help: help)
        }
    }

    static func isRedactedJWT(_ token: Substring) -> Bool {
        guard let first = token.split(separator: ".").first,
            let data = Base64URL.decode(String(first)).map({ Data($0) }),
            let header = try? JSONValue.parse(data)
        else { return false }
        return header["kid"]?.stringValue == Pseudonymizer.jwtKeyID
    }
}
