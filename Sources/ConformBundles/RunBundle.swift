import ConformCore
import ConformCrypto
import ConformDiagnostics
import ConformReport
import ConformRunner
import ConformTraffic
import Foundation

/// `conform run --bundle DIR`: the run's reports, its exchange log, its suites, the product file, the kit's
/// version and what verification needs, sealed by a SHA-256 manifest (docs/certification.md).
public struct RunBundle {
    /// The bundle's directory, resolved, and as the user named it.
    public var directory: String
    public var shown: String
    public var log: BundleLog
    /// The seed the run draws its generated values from, so that verification renders the same requests.
    public var seed: String
    /// The key that signs the manifest (`--sign KEY`), if any.
    public var signingKey: Ed25519.PrivateKey?
    public var kit: BundleKit

    /// Makes the bundle's directory and opens its exchange log; `nil` once the reason it cannot is reported.
    public static func open(
        _ directory: String, shown: String, signingKey: Ed25519.PrivateKey? = nil, kit: BundleKit,
        output: BundleConsole
    ) -> RunBundle? {
        do {
            try CertificationBundle.create(directory)
            let seed = Hex.encode(RandomBytes.generate(count: 32))
            let log = try BundleLog(
                directory: (directory as NSString).appendingPathComponent(CertificationBundle.logDirectory),
                redaction: RedactionPolicy(profile: kit.profile), seed: seed)
            return RunBundle(
                directory: directory, shown: shown, log: log, seed: seed, signingKey: signingKey, kit: kit)
        } catch let problem as BundleProblem {
            output.report(problem.diagnostic)
        } catch {
            output.report(failure: error)
        }
        return nil
    }

    /// The report files the bundle holds: JSON, JUnit and HTML.
    public var reports: [ReportTarget] { CertificationBundle.reports(in: directory, shown: shown) }
}

extension CertificationBundle {
    /// The report files a bundle in `directory` (`shown` as named) holds: JSON, JUnit and HTML.
    public static func reports(in directory: String, shown: String) -> [ReportTarget] {
        [
            (ReportTarget.Kind.json, CertificationBundle.jsonReport), (.junit, CertificationBundle.junitReport),
            (.html, CertificationBundle.htmlReport),
        ].map { kind, name in
            ReportTarget(
                kind: kind, file: URL(fileURLWithPath: (directory as NSString).appendingPathComponent(name)),
                shownPath: (shown as NSString).appendingPathComponent(name))
        }
    }
}

extension RunBundle {
    /// Writes the rest of the bundle once the run of `plan` (out of `planSuites`, read from `resolve(file)`,
    /// selected with `selection`, the shard `shard` as given) is over, then its manifest; a problem is reported and
    /// makes the run unable to give a bundle (false).
    public func finish(
        plan: RunPlan, planSuites: [Suite], selection: RunSelection, shard: String?, credentials: RunCredentials,
        product: ProductIdentity?, resolve: (String) -> String, output: BundleConsole
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
                guard let data = FileManager.default.contents(atPath: resolve(suite.file)),
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
                kitVersion: kit.version, kitCommit: kit.commit, seed: seed,
                target: plan.targetDescription, bases: plan.targetDefaults,
                variables: given.filter { !credentials.hides($0.key, value: $0.value) },
                tags: selection.tags, filters: selection.filters, steps: selection.steps, shard: shard,
                failFast: plan.failFast, allowedHosts: plan.allowedHosts,
                suites: names, failures: log.failures, pseudonyms: log.pseudonyms)
            try CertificationBundle.write(
                Data((info.json.serialized(.pretty) + "\n").utf8), as: CertificationBundle.infoFile, in: directory)
            try CertificationBundle.write(
                Data(kit.versionFileText.utf8),
                as: CertificationBundle.versionFile, in: directory)
            if let product {
                try CertificationBundle.write(
                    Data(product.fileText.utf8), as: CertificationBundle.productFile, in: directory)
            }
            let manifest = try CertificationBundle.seal(directory)
            output.err.write(
                "Bundle: \(shown) (\(manifest.entries.count + 1) files, manifest \(BundleManifest.fileName))\n")
            if let signingKey {
                try BundleSignature.sign(manifest.text, with: signingKey, in: directory)
                output.err.write(
                    "Bundle: signed by key \(signingKey.publicKey.fingerprint) (\(BundleManifest.signatureFile))\n")
            }
            return true
        } catch let problem as BundleProblem {
            output.report(problem.diagnostic)
        } catch {
            output.report(failure: error)
        }
        return false
    }
}
