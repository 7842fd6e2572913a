import ConformCore
import ConformCrypto
import ConformDiagnostics
import ConformReport
import ConformRunner
import ConformTraffic
import Foundation

/// `conform merge --bundle OUT SHARD_BUNDLE…`: the bundles of every shard of one run joined into one bundle, each
/// shard checked as `verify` checks a bundle (its files against its manifest, its verdict judged again from its
/// log and compared with its reports) before it is joined. The merged bundle holds the plan's files once, each
/// shard's `bundle.json` and log under `shards/K`, and the reports of the whole run (docs/certification.md).
public struct BundleMerge {
    /// One shard's bundle, checked and judged again.
    public struct Checked {
        public var path: String
        public var directory: String
        public var bundle: VerifiedBundle
        public var report: RunReport
    }

    /// A shard's bundle that cannot be joined, with the diagnostic that names it.
    public struct Refusal: Error, DiagnosticConvertible {
        public var diagnostic: Diagnostic
    }

    /// The merged bundle's directory, resolved, and as the user named it.
    public var directory: String
    public var out: String
    public var kit: BundleKit
    /// The key that signs the merged bundle's manifest (`--sign KEY`), if any.
    public var signingKey: Ed25519.PrivateKey?
    /// Where the merged run is shown (a ``ConsoleReporter``), and the report files asked for besides the bundle's.
    public var console: (any RunReporter)?
    public var reports: [ReportTarget]
    public var output: BundleConsole
    /// How a shard's path as given is found (the command line's current directory).
    public var resolve: @Sendable (String) -> String

    public init(
        directory: String, out: String, kit: BundleKit, signingKey: Ed25519.PrivateKey?,
        console: (any RunReporter)?, reports: [ReportTarget], output: BundleConsole,
        resolve: @escaping @Sendable (String) -> String
    ) {
        self.directory = directory
        self.out = out
        self.kit = kit
        self.signingKey = signingKey
        self.console = console
        self.reports = reports
        self.output = output
        self.resolve = resolve
    }

    /// Checks the bundle of every shard in `paths`, joins them and writes the merged bundle; the status of the merged
    /// run, or 2 once what refused the merge is reported. A shard named otherwise than `K/N` is thrown.
    public func run(_ paths: [String]) async throws(Shard.SyntaxError) -> RunStatus {
        let io = output
        var shards: [Checked] = []
        for path in paths {
            switch try await check(path) {
            case .failure(let failure):
                io.report(failure.diagnostic)
                io.err.write("Merge: refused; nothing was written to \(out)\n")
                return .cannotRun
            case .success(let checked):
                if let first = shards.first, let why = Self.difference(checked, first) {
                    io.report(
                        Diagnostic(
                            .bundleInvalid, file: path,
                            message: "is not a shard of the same run as \(first.path): \(why)",
                            help: "merge the bundles of the shards of one run: one plan, kit, target and product"))
                    io.err.write("Merge: refused; nothing was written to \(out)\n")
                    return .cannotRun
                }
                shards.append(checked)
            }
        }
        var merged: RunResult
        do {
            merged = try RunReport.merge(shards.map(\.report)).result
        } catch {
            io.report(error.diagnostic)
            io.err.write("Merge: refused; nothing was written to \(out)\n")
            return .cannotRun
        }
        let first = shards[0]
        let whole = RunSelection(
            tags: first.bundle.info.tags, filters: first.bundle.info.filters, steps: first.bundle.info.steps
        )
        .apply(first.bundle.suites)
        var scope = first.bundle.scope(suites: whole, shard: .whole)
        var written: [String] = []
        for shard in shards {
            for name in shard.bundle.report.result.scope?.otherSuites ?? [] where !written.contains(name) {
                written.append(name)
            }
        }
        if written.count == scope.otherSuites.count { scope.otherSuites = written }
        merged.scope = scope
        let provenances = shards.compactMap(\.bundle.report.result.provenance)
        if var provenance = provenances.first {
            provenance.startedAt = provenances.map(\.startedAt).min() ?? provenance.startedAt
            provenance.finishedAt = provenances.compactMap(\.finishedAt).max()
            merged.provenance = provenance
        }
        let ordered = shards.sorted { $0.report.placement.shard.index < $1.report.placement.shard.index }
        return await write(merged, shards: ordered)
    }

    /// The shard's bundle at `path`, checked as `verify` checks it, or why it cannot be joined (naming it).
    public func check(_ path: String) async throws(Shard.SyntaxError) -> Result<Checked, Refusal> {
        let io = output
        let directory = resolve(path)
        func refused(_ problem: BundleProblem) -> Result<Checked, Refusal> {
            .failure(
                Refusal(
                    diagnostic: Diagnostic(
                        .bundleInvalid, file: path + "/" + problem.file,
                        message: "the shard's bundle does not verify: \(problem.message)", help: problem.help)))
        }
        func refused(_ message: String, help: String) -> Result<Checked, Refusal> {
            .failure(Refusal(diagnostic: Diagnostic(.bundleInvalid, file: path, message: message, help: help)))
        }
        let bundle: VerifiedBundle
        do {
            bundle = try VerifiedBundle(directory: directory, shown: path, kit: kit)
        } catch {
            return refused(error)
        }
        guard bundle.info.shards.isEmpty else {
            return refused(
                "is a bundle merged from shards already", help: "pass the bundles the shards wrote themselves")
        }
        guard bundle.sameKit else {
            return refused(
                "was written by conform \(bundle.info.kitVersion) (commit \(bundle.info.kitCommit)), this is conform \(kit.version) (commit \(kit.commit))",
                help: "merge with the kit that ran the shards")
        }
        if let problems = bundle.suiteProblems {
            io.err.write(problems)
            return refused("the shard's suites have problems", help: "make the shard's bundle again")
        }
        guard let part = bundle.parts.first else { return refused("holds no log", help: "make the bundle again") }
        let outcome: Session.Outcome
        switch try await bundle.judgeAgain() {
        case .judged(let judged): outcome = judged
        case .suitesChanged(let problem): return refused(problem)
        case .failed(let error):
            return refused("cannot be judged again: \(error)", help: "make the shard's bundle again")
        }
        let placement = try bundle.plan(of: part).placement
        guard let judged = outcome.result else {
            return refused("its run cannot be judged again", help: "make the shard's bundle again")
        }
        do {
            let disagreements = try bundle.disagreements(judged: judged, directory: directory, sameKit: true)
            if let (file, differences) = disagreements.first {
                return .failure(
                    Refusal(
                        diagnostic: Diagnostic(
                            .bundleDisagrees, file: path + "/" + file,
                            message:
                                "the shard's report does not follow from its log (\(Noun("difference").counted(differences.count))): \(differences.prefix(3).joined(separator: "; "))",
                            help: "the shard's bundle was changed after its run; make it again")))
            }
        } catch {
            return refused(error)
        }
        io.err.write(
            "Shard \(part.info.shard ?? "1/1"): \(path): intact, judged again from its log, the same as its reports (\(Noun("step").counted(judged.stepCount)))\n"
        )
        return .success(
            Checked(
                path: path, directory: directory, bundle: bundle,
                report: RunReport(result: judged, placement: placement, source: path)))
    }

    /// What makes `a` a shard of another run than `b`, in words; `nil` when they are shards of one run.
    public static func difference(_ a: Checked, _ b: Checked) -> String? {
        if let why = VerifiedBundle.planDifference(a.bundle.info, b.bundle.info) { return why }
        if a.bundle.suiteFiles.map(\.contents) != b.bundle.suiteFiles.map(\.contents) {
            return "its suite files hold other text"
        }
        let productA = a.bundle.report.result.provenance?.product, productB = b.bundle.report.result.provenance?.product
        if productA != productB {
            return
                "its product is \(productA.map { "'\($0.description)'" } ?? "none"), not \(productB.map { "'\($0.description)'" } ?? "none")"
        }
        return nil
    }

    /// Writes the merged bundle to `out`: the plan's files, each shard's `bundle.json` and log (copied with their
    /// SHA-256 checked again), the whole run's reports, the manifest, and the signature with `signingKey`.
    func write(_ merged: RunResult, shards: [Checked]) async -> RunStatus {
        let io = output
        let first = shards[0]
        do throws(BundleProblem) {
            try CertificationBundle.create(directory)
            for file in first.bundle.suiteFiles {
                try CertificationBundle.write(file.contents, as: file.name, in: directory)
            }
            try CertificationBundle.write(
                Data(kit.versionFileText.utf8),
                as: CertificationBundle.versionFile, in: directory)
            if let entry = first.bundle.manifest.entries.first(where: { $0.path == CertificationBundle.productFile }) {
                try CertificationBundle.copy(
                    entry.path, from: first.directory, sha256: entry.sha256, as: entry.path, in: directory)
            }
            var names: [String] = []
            for shard in shards {
                let name = "shards/\(shard.report.placement.shard.index)"
                let log = CertificationBundle.logDirectory + "/"
                for file in [
                    CertificationBundle.infoFile, log + RecordingLayout.exchangesFile, log + RecordingLayout.metaFile,
                ] {
                    guard let entry = shard.bundle.manifest.entries.first(where: { $0.path == file }) else {
                        throw BundleProblem(
                            file: shard.path + "/" + file, "the shard's manifest does not list it",
                            help: "make the shard's bundle again")
                    }
                    try CertificationBundle.copy(
                        file, from: shard.directory, sha256: entry.sha256, as: name + "/" + file, in: directory)
                }
                names.append(name)
            }
            let info = first.bundle.info
            var whole = BundleInfo(
                kitVersion: info.kitVersion, kitCommit: info.kitCommit, seed: "", target: info.target,
                bases: info.bases, variables: info.variables, tags: info.tags, filters: info.filters,
                steps: info.steps, shard: nil, failFast: info.failFast, allowedHosts: info.allowedHosts,
                suites: info.suites)
            whole.shards = names
            try CertificationBundle.write(
                Data((whole.json.serialized(.pretty) + "\n").utf8), as: CertificationBundle.infoFile, in: directory)
        } catch {
            io.report(error.diagnostic)
            return .cannotRun
        }
        let session = Session(
            console: console, reports: reports + CertificationBundle.reports(in: directory, shown: out),
            credentialHeaders: kit.profile.credentialHeaderNames)
        let outcome = await session.run { events in
            merged.replay(to: events)
            return merged
        }
        do {
            let manifest = try CertificationBundle.seal(directory)
            io.err.write(
                "Bundle: \(out) (\(manifest.entries.count + 1) files, manifest \(BundleManifest.fileName)), merged from \(Noun("shard").counted(shards.count))\n"
            )
            if let signingKey {
                try BundleSignature.sign(manifest.text, with: signingKey, in: directory)
                io.err.write(
                    "Bundle: signed by key \(signingKey.publicKey.fingerprint) (\(BundleManifest.signatureFile))\n")
            }
        } catch {
            io.report(error.diagnostic)
            return .cannotRun
        }
        for problem in outcome.problems { io.report(problem) }
        return outcome.status
    }
}
