import ConformCore
import ConformCrypto
import ConformDiagnostics
import ConformReport
import ConformRunner
import ConformTraffic
import Foundation

/// `conform run --bundle DIR`: the run's reports, its exchange log, its suites, the product file, the kit's
/// version and what verification needs, sealed by a SHA-256 manifest (docs/certification.md).
struct RunBundle {
    var directory: String
    var shown: String
    var log: BundleLog
    var seed: String
    /// The key that signs the manifest (`--sign KEY`), if any.
    var signingKey: Ed25519.PrivateKey?

    /// Makes the bundle's directory and opens its exchange log; `nil` once the reason it cannot is reported.
    static func open(_ path: String, signingKey: Ed25519.PrivateKey? = nil, io: CommandIO) -> RunBundle? {
        let directory = io.resolve(path)
        do {
            try CertificationBundle.create(directory)
            let seed = Hex.encode(RandomBytes.generate(count: 32))
            let log = try BundleLog(
                directory: (directory as NSString).appendingPathComponent(CertificationBundle.logDirectory),
                redaction: RedactionPolicy(profile: ConformCommand.profile), seed: seed)
            return RunBundle(directory: directory, shown: path, log: log, seed: seed, signingKey: signingKey)
        } catch let problem as BundleProblem {
            io.report(problem.diagnostic)
        } catch {
            io.report(failure: error)
        }
        return nil
    }

    /// The report files the bundle holds: JSON, JUnit and HTML.
    var reports: [ReportTarget] {
        [
            (ReportTarget.Kind.json, CertificationBundle.jsonReport), (.junit, CertificationBundle.junitReport),
            (.html, CertificationBundle.htmlReport),
        ].map { kind, name in
            ReportTarget(
                kind: kind, file: URL(fileURLWithPath: (directory as NSString).appendingPathComponent(name)),
                shownPath: (shown as NSString).appendingPathComponent(name))
        }
    }

    /// Writes the rest of the bundle once the run is over, then its manifest; a problem is reported and makes the
    /// run unable to give a bundle (exit 2).
    func finish(
        _ parsed: Arguments, plan: RunPlan, planSuites: [Suite], credentials: RunCredentials,
        product: ProductIdentity?, io: CommandIO
    ) -> Bool {
        log.close()
        do {
            if let problem = log.problems.first {
                throw BundleProblem(
                    file: CertificationBundle.logDirectory, "the exchange log is incomplete: \(problem)",
                    help: "check the free space, then run again")
            }
            var names: [String] = []
            for (i, suite) in planSuites.enumerated() {
                // Numbered in plan order, so that two files of one name from different directories both fit.
                let name = String(format: "%03d-", i + 1) + (suite.file as NSString).lastPathComponent
                guard let data = FileManager.default.contents(atPath: io.resolve(suite.file)),
                    LoadedSuites.contentHash(of: data) == suite.contentHash
                else {
                    throw BundleProblem(
                        file: suite.file, "changed while the run went on", help: "run again with the suites left alone")
                }
                try CertificationBundle.write(data, as: CertificationBundle.suitesDirectory + "/" + name, in: directory)
                names.append(CertificationBundle.suitesDirectory + "/" + name)
            }
            let given = plan.environment.merging(plan.overrides) { _, new in new }
            let info = BundleInfo(
                kitVersion: ConformCommand.version, kitCommit: ConformCommand.commit, seed: seed,
                target: plan.targetDescription, bases: plan.targetDefaults,
                variables: given.filter { !credentials.hides($0.key, value: $0.value) },
                tags: parsed.values("--tag"), filters: parsed.values("--filter"), steps: parsed.values("--step"),
                shard: parsed.value("--shard"), failFast: plan.failFast, allowedHosts: plan.allowedHosts,
                suites: names, failures: log.failures, pseudonyms: log.pseudonyms)
            try CertificationBundle.write(
                Data((info.json.serialized(.pretty) + "\n").utf8), as: CertificationBundle.infoFile, in: directory)
            try CertificationBundle.write(
                Data("conform \(ConformCommand.version)\ncommit \(ConformCommand.commit)\n".utf8),
                as: CertificationBundle.versionFile, in: directory)
            if let product {
                try CertificationBundle.write(
                    Data(product.fileText.utf8), as: CertificationBundle.productFile, in: directory)
            }
            let manifest = try CertificationBundle.seal(directory)
            io.err.write(
                "Bundle: \(shown) (\(manifest.entries.count + 1) files, manifest \(BundleManifest.fileName))\n")
            if let signingKey {
                try BundleSignature.sign(manifest.text, with: signingKey, in: directory)
                io.err.write(
                    "Bundle: signed by key \(signingKey.publicKey.fingerprint) (\(BundleManifest.signatureFile))\n")
            }
            return true
        } catch let problem as BundleProblem {
            io.report(problem.diagnostic)
        } catch {
            io.report(failure: error)
        }
        return false
    }
}
