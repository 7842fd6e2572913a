import ConformCore
import ConformCrypto
import ConformReport
import Foundation

/// A run's scope and provenance made from its suites, the same for `conform run` and `ConformTesting`.
extension RunScope {
    /// The scope of a run of `suites` (selected and sharded) against the bundled suites whose SHA-256s are
    /// `bundled`.
    public init(
        running suites: [Suite], bundled: Set<String>, selection: [String] = [], shard: Shard = .whole,
        failFast: Bool = false
    ) {
        self.init(
            selection: selection, bundledSuites: bundled.count,
            bundledSuitesRun: Set(suites.map(\.contentHash)).intersection(bundled).count,
            otherSuites: suites.filter { !bundled.contains($0.contentHash) }.map(\.file), shard: shard,
            failFast: failFast)
    }

    /// The SHA-256 of each suite file in `directory` (empty when there is none).
    public static func suiteHashes(inDirectory directory: String) -> Set<String> {
        Set(
            LoadedSuites.suiteFiles(inDirectory: directory).compactMap { name in
                FileManager.default.contents(atPath: (directory as NSString).appendingPathComponent(name)).map {
                    LoadedSuites.contentHash(of: $0)
                }
            })
    }
}

extension RunProvenance {
    /// The provenance of a run of the plan `plan`, started now: this kit, the plan's digests, `commandLine` and
    /// `variables` with credentials masked (``SecretMasker``; `credentials` are the variables the plan sends as
    /// credentials, `keep` are public values shown as they are).
    public init(
        plan: [Suite], commandLine: [String], variables: [String: String], product: ProductIdentity?,
        keep: Set<String>, credentials: Set<String> = []
    ) {
        let files = plan.map { SuiteFile(file: $0.file, sha256: $0.contentHash) }
        let masker = SecretMasker(
            secrets: Self.credentialValues(variables, credentials: credentials, keep: keep))
        self.init(
            kitVersion: ConformVersion.version, kitCommit: ConformVersion.commit,
            suitesDigest: Hex.encode(SHA256.hash(Self.planDigestText(files))), suiteFiles: files,
            commandLine: Self.shownCommandLine(commandLine, masker: masker, keep: keep, credentials: credentials),
            variables: Self.shownVariables(variables, masker: masker, keep: keep, credentials: credentials),
            product: product, startedAt: Date())
    }

    /// The values of the credentials among `variables` (``isCredential(_:_:)``), but for the public ones in `keep`.
    public static func credentialValues(
        _ variables: [String: String], credentials: Set<String>, keep: Set<String>
    ) -> [String] {
        variables.filter { isCredential($0.key, credentials) && !keep.contains($0.value) }.map(\.value).sorted()
    }
}
