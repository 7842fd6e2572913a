import ConformCore
import Foundation

/// Where a run's verdict comes from: the kit that judged (version and commit), the suites it judged with (one
/// SHA-256 for the plan and one per file), how it was started (the command line and the effective variables, their
/// credentials masked), what it judged (the target and the product's identity) and when.
public struct RunProvenance: Sendable, Hashable {
    /// Conform's version (`conform --version`).
    public var kitVersion: String
    /// The commit Conform was built from, as embedded at build time; `unknown` when the build had no git checkout.
    public var kitCommit: String
    /// The SHA-256 of the plan: of the `sha256sum`-style lines `<hex>  <file name>` of its suite files, in plan order.
    public var suitesDigest: String
    /// Each suite file of the plan and its SHA-256, in plan order.
    public var suiteFiles: [SuiteFile]
    /// The command line, each argument as given but with credentials masked.
    public var commandLine: [String]
    /// The variables the run set (the target's bases, `--var`, `CONFORM_VAR_`), by name; credentials masked.
    public var variables: [Variable]
    /// The implementation under test, when the run was told (`--product`, `--product-file`).
    public var product: ProductIdentity?
    /// When the run started and finished, UTC.
    public var startedAt: Date
    public var finishedAt: Date?

    /// A suite file and its SHA-256.
    public struct SuiteFile: Sendable, Hashable {
        public var file: String
        public var sha256: String

        public init(file: String, sha256: String) {
            self.file = file
            self.sha256 = sha256
        }
    }

    /// A variable as reports show it: its value, or masked when it is a credential.
    public struct Variable: Sendable, Hashable {
        public var name: String
        public var value: String
        /// Whether ``value`` is masked.
        public var masked: Bool

        public init(name: String, value: String, masked: Bool) {
            self.name = name
            self.value = value
            self.masked = masked
        }
    }

    public init(
        kitVersion: String, kitCommit: String, suitesDigest: String, suiteFiles: [SuiteFile],
        commandLine: [String], variables: [Variable], product: ProductIdentity?, startedAt: Date,
        finishedAt: Date? = nil
    ) {
        self.kitVersion = kitVersion
        self.kitCommit = kitCommit
        self.suitesDigest = suitesDigest
        self.suiteFiles = suiteFiles
        self.commandLine = commandLine
        self.variables = variables
        self.product = product
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }

    /// The text whose SHA-256 is the plan's digest: one `<hex>  <file name>` line per suite file, in plan order.
    /// The file name is the last path component, so the digest does not depend on where the suites were installed.
    public static func planDigestText(_ files: [SuiteFile]) -> String {
        files.map { "\($0.sha256)  \(($0.file as NSString).lastPathComponent)\n" }.joined()
    }

    /// The variables as reports show them: sorted by name, a credential's value masked.
    ///
    /// A credential is a variable the suites send as one (`credentials`, ``Suite/credentialVariables(profile:)``),
    /// whose name says so (the header and member names `SecretMasker` hides, such as `appCode`, `apiKey`, `token`,
    /// `secret`, `password`), or whose value `masker` hides in text (a value sent in an `Authorization` header);
    /// `keep` values (the reference's public test credentials) are shown as they are.
    public static func shownVariables(
        _ values: [String: String], masker: SecretMasker, keep: Set<String> = [], credentials: Set<String> = []
    ) -> [Variable] {
        values.sorted { $0.key < $1.key }.map { name, value in
            let secret =
                !keep.contains(value)
                && (isCredential(name, credentials) || masker.text(value) != value)
            return Variable(name: name, value: secret ? SecretMasker.masked(value) : value, masked: secret)
        }
    }

    /// The command line with the value of every `--var NAME=VALUE` whose variable is a credential masked, and any
    /// credential `masker` knows hidden wherever it appears.
    public static func shownCommandLine(
        _ arguments: [String], masker: SecretMasker, keep: Set<String> = [], credentials: Set<String> = []
    ) -> [String] {
        var out: [String] = []
        var varValueNext = false
        for argument in arguments {
            var shown = argument
            let pair: Substring? =
                varValueNext ? Substring(argument) : argument.hasPrefix("--var=") ? argument.dropFirst(6) : nil
            varValueNext = argument == "--var"
            if let pair, let eq = pair.firstIndex(of: "=") {
                let name = String(pair[..<eq]), value = String(pair[pair.index(after: eq)...])
                if !keep.contains(value) && isCredential(name, credentials) {
                    shown = String(argument.dropLast(pair.count)) + name + "=" + SecretMasker.masked(value)
                }
            }
            out.append(masker.text(shown))
        }
        return out
    }

    /// Whether the variable `name` is a credential: among `credentials`, or named like one.
    public static func isCredential(_ name: String, _ credentials: Set<String>) -> Bool {
        credentials.contains(name) || SecretMasker.isCredentialName(name)
    }
}

/// The implementation under test as the vendor names it: `--product NAME --product-version V`, or a product file
/// in the manner of Sonobuoy's `PRODUCT.yaml` (``ProductIdentity/load(_:file:)``).
public struct ProductIdentity: Sendable, Hashable {
    public var name: String
    public var version: String
    /// The other members of a product file (`vendor`, `website_url`, …), in file order.
    public var details: [(key: String, value: String)]

    public init(name: String, version: String, details: [(key: String, value: String)] = []) {
        self.name = name
        self.version = version
        self.details = details
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.name == b.name && a.version == b.version && a.details.elementsEqual(b.details) { $0 == $1 }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(version)
        for (k, v) in details {
            hasher.combine(k)
            hasher.combine(v)
        }
    }

    /// `NAME VERSION`.
    public var description: String { "\(name) \(version)" }
}
