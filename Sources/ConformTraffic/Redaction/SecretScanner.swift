import ConformCore
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
    }

    public var file: String
    public var line: Int
    public var column: Int
    public var kind: Kind
    /// The start of the secret, the rest masked, so the report itself does not leak it.
    public var excerpt: String
    public var help: String

    public var description: String {
        "\(file):\(line):\(column): error: unredacted \(kind.rawValue) '\(excerpt)'\nhelp: \(help)"
    }
}

/// Finds secret patterns that redaction would have replaced: the CI gate behind `conform scan`.
public struct SecretScanner: Sendable {
    /// Email domains that are not secrets (pseudonyms live in `redacted.invalid`).
    public var allowedEmailDomains: [String]
    /// Values that are public and never reported.
    public var keep: [String]

    public init(
        allowedEmailDomains: [String] = ["redacted.invalid"], keep: [String] = RedactionPolicy.referenceCredentials
    ) {
        self.allowedEmailDomains = allowedEmailDomains
        self.keep = keep
    }

    /// Scans files and directories (recursively, skipping hidden entries) and returns every finding, in path order.
    public func scan(paths: [String]) throws(RecordingError) -> [SecretFinding] {
        var findings: [SecretFinding] = []
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
                        findings += try scan(file: full)
                    }
                }
            } else {
                findings += try scan(file: path)
            }
        }
        return findings
    }

    /// Scans one file line by line; binary files (with NUL bytes) are skipped.
    public func scan(file: String) throws(RecordingError) -> [SecretFinding] {
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
            if line.bytes.contains(0) { return [] }
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

    private static let phoneField = try! TextPattern(
        "\\\\?\"(?:number|phoneNumber|msisdn|phone|mobile|gsm)\\\\?\"\\s*:\\s*\\\\?\"?(\\+?[0-9][0-9 ()-]{4,}[0-9])",
        caseInsensitive: true)
    private static let appAuthorization = try! TextPattern("\\bApp\\s+([A-Za-z0-9._~+/=-]{8,})")
    private static let fcmToken = try! TextPattern("[A-Za-z0-9_-]{11,}:APA91b[A-Za-z0-9_-]{20,}")
    private static let tokenField = try! TextPattern(
        "\\\\?\"(?:pushServiceToken|cloudToken|deviceToken|registrationToken)\\\\?\"\\s*:\\s*\\\\?\"([^\"\\\\]{8,})",
        caseInsensitive: true)

    func scan(line: String, number: Int, file: String) -> [SecretFinding] {
        var found: [(Range<String.Index>, SecretFinding.Kind, String)] = []
        func add(_ range: Range<String.Index>, _ kind: SecretFinding.Kind, _ help: String) {
            if found.contains(where: { $0.0.overlaps(range) }) { return }
            found.append((range, kind, help))
        }
        let keepSet = Set(keep)
        if line.contains("eyJ") {
            for range in TextPattern.jwt.matches(in: line) where !Self.isRedactedJWT(line[range]) {
                add(range, .jwt, "record with redaction on, or replace the token by a pseudonym before committing")
            }
        }
        if line.contains("@") {
            for range in TextPattern.email.matches(in: line) {
                let domain = line[range].split(separator: "@").last.map { $0.lowercased() } ?? ""
                if allowedEmailDomains.contains(where: { domain == $0 || domain.hasSuffix("." + $0) }) { continue }
                add(range, .email, "replace it by a pseudonym such as user-1234@\(Pseudonymizer.emailDomain)")
            }
        }
        for range in Self.phoneField.captures(in: line, group: 1) {
            let digits = line[range].filter(\.isASCIIDigit)
            if digits.hasPrefix(Pseudonymizer.phonePrefix) || digits.count < 6 { continue }
            add(range, .phone, "replace it by a pseudonym starting with \(Pseudonymizer.phonePrefix) (digits only)")
        }
        if line.contains("+") {
            for range in TextPattern.internationalPhone.matches(in: line) {
                add(range, .phone, "replace it by a pseudonym starting with +\(Pseudonymizer.phonePrefix)")
            }
        }
        if line.contains("App") {
            for range in Self.appAuthorization.captures(in: line, group: 1) {
                let value = String(line[range])
                if Pseudonymizer.isPseudonym(value) || keepSet.contains(value) { continue }
                guard value.contains(where: { $0.isASCIIDigit || $0 == "-" }) else { continue }
                add(range, .authorization, "replace the application code or API key by a pseudonym (redacted-…)")
            }
        }
        if line.contains("APA91b") {
            for range in Self.fcmToken.matches(in: line) {
                add(range, .pushToken, "replace the token by a pseudonym (redacted-token-…)")
            }
        }
        for range in Self.tokenField.captures(in: line, group: 1) where !line[range].hasPrefix(Pseudonymizer.prefix) {
            add(range, .pushToken, "replace the token by a pseudonym (redacted-token-…)")
        }
        return found.sorted { $0.0.lowerBound < $1.0.lowerBound }.map { range, kind, help in
            let secret = line[range]
            let column = line.distance(from: line.startIndex, to: range.lowerBound) + 1
            return SecretFinding(
                file: file, line: number, column: column, kind: kind,
                excerpt: String(secret.prefix(3)) + String(repeating: "*", count: min(max(secret.count - 3, 0), 8)),
                help: help)
        }
    }

    static func isRedactedJWT(_ token: Substring) -> Bool {
        guard let first = token.split(separator: ".").first, let data = Base64URLText.decode(first),
            let header = try? JSONValue.parse(data)
        else { return false }
        return header["kid"]?.stringValue == Pseudonymizer.jwtKeyID
    }
}
