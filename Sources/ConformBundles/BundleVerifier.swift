import ConformCore
import ConformCrypto
import ConformDiagnostics
import ConformReport
import ConformTraffic
import Foundation

/// The session of `conform verify DIR`: a certification bundle checked against its manifest and signature, its
/// plan judged again from its exchange log with its own suites, the verdict of every step compared with the
/// bundle's reports, and the verification's verdict. The run judged again is shown, and the reports written, only
/// once the verification's verdict is known: what the console shows, the last line and the exit status all come
/// from that one verdict (``BundleVerification``), and nothing changes the status after it is printed.
public struct BundleVerifier {
    /// The bundle's directory, resolved, and as the user named it.
    public var directory: String
    public var shown: String
    public var kit: BundleKit
    /// `--key FILE`: the public key the signature must verify with, and the file as named.
    public var key: Ed25519.PublicKey?
    public var keyFile: String
    /// `--allow-partial`: a partial run is accepted.
    public var allowPartial: Bool
    /// Where the run judged again is shown (a ``ConsoleReporter``), if anywhere.
    public var console: (any RunReporter)?
    /// The report files asked for (`--report`): the run judged again, with the verification.
    public var reports: [ReportTarget]
    public var output: BundleConsole

    public init(
        directory: String, shown: String, kit: BundleKit, key: Ed25519.PublicKey? = nil, keyFile: String = "",
        allowPartial: Bool = false, console: (any RunReporter)?, reports: [ReportTarget] = [], output: BundleConsole
    ) {
        self.directory = directory
        self.shown = shown
        self.kit = kit
        self.key = key
        self.keyFile = keyFile
        self.allowPartial = allowPartial
        self.console = console
        self.reports = reports
        self.output = output
    }

    /// Verifies the bundle and returns the exit status of its verdict. A shard in `bundle.json` that is not
    /// `K/N` is thrown (the command line says it as a usage error).
    public func run() async throws(Shard.SyntaxError) -> RunStatus {
        let bundle: VerifiedBundle
        do {
            bundle = try VerifiedBundle(directory: directory, shown: shown, kit: kit)
        } catch {
            output.report(error.diagnostic)
            return await tampered(
                "the bundle is incomplete, changed or holds what a bundle does not", found: [error.diagnostic])
        }
        output.err.write("Bundle: \(shown): \(bundle.manifest.entries.count + 1) files, each as its manifest says\n")
        let signed: BundleSignature.Status
        switch checkSignature(bundle) {
        case .success(let status): signed = status
        case .failure(let end): return end.status
        }
        if let problems = bundle.suiteProblems {
            output.err.write(problems)
            output.report(
                Diagnostic(
                    .bundleInvalid, message: "the bundle's suites have problems; nothing was judged",
                    help: "the bundle's suites are those the run loaded; make the bundle again"))
            return .cannotRun
        }
        let kitSuites = bundle.suites.filter { kit.bundledSuiteHashes.contains($0.contentHash) }.count
        output.err.write(
            kitSuites == bundle.suites.count
                ? "Suites: the bundle's \(bundle.suites.count) suites are this kit's bundled suites\n"
                : "Suites: \(bundle.suites.count - kitSuites) of the bundle's \(bundle.suites.count) suites are not this kit's bundled suites\n"
        )
        let modified = bundle.modifiedSuites()
        for suite in modified { output.err.write(suite.rendered) }
        // Judged first, shown once the verdict is known.
        let outcome: Session.Outcome
        switch try await bundle.judgeAgain() {
        case .judged(let judged): outcome = judged
        case .suitesChanged(let problem):
            output.report(problem.diagnostic)
            return await tampered("a suite is not the one the run judged with", found: [problem.diagnostic])
        case .failed(let error):
            output.report(failure: error)
            output.out.write("Verification: TAMPERED (the shards of the merged bundle do not make one run)\n")
            return .cannotRun
        }
        guard let judged = outcome.result else {
            for problem in outcome.problems { output.report(problem) }
            return outcome.status
        }
        if !bundle.sameKit {
            output.err.write(
                "Reports: the bundle was written by conform \(bundle.info.kitVersion) (commit \(bundle.info.kitCommit)), not this kit; the certification the reports state and the HTML page's script and style were not compared\n"
            )
        }
        let disagreements: [(file: String, differences: [String])]
        do {
            disagreements = try bundle.disagreements(judged: judged, directory: directory, sameKit: bundle.sameKit)
        } catch {
            output.report(error.diagnostic)
            return .cannotRun
        }
        let verification: BundleVerification
        if disagreements.isEmpty {
            output.err.write(
                "Verdict: judged again from the log, the same as each of the bundle's reports (JSON, JUnit, HTML) for all \(judged.stepCount) steps\n"
            )
            verification = BundleVerdict.verification(
                of: judged, status: outcome.status, modified: modified, signed: signed, allowPartial: allowPartial)
        } else {
            for problem in outcome.problems { output.report(problem) }
            for (file, differences) in disagreements {
                let shown =
                    differences.prefix(10).map { "\n  \($0)" }.joined() + (differences.count > 10 ? "\n  …" : "")
                output.report(
                    Diagnostic(
                        .bundleDisagrees, file: self.shown + "/" + file,
                        message:
                            "the report does not follow from the bundle's log (\(Noun("difference").counted(differences.count))):\(shown)",
                        help:
                            "the report or the log was changed, or the run cannot be judged again; make the bundle again"
                    ))
            }
            verification = BundleVerification(
                verdict: .tampered,
                reasons: ["a report does not follow from the bundle's log"]
                    + disagreements.flatMap { file, differences in differences.map { "\(file): \($0)" } },
                modifiedSuites: modified.map(\.reported), signature: signed,
                line: "Verification: TAMPERED (a report does not follow from the bundle's log)")
        }
        return await show(judged, verification, runStatus: outcome.status)
    }

    /// Shows the run judged again on the console (`judgedAgain`), writes the reports asked for with the verification, then the
    /// verification's line; the status is the verification's (``BundleVerdict/status(of:run:)``), or 2 when a
    /// report cannot be written (said before the line, which then is not printed).
    func show(
        _ judged: RunResult, _ verification: BundleVerification, runStatus: RunStatus, judgedAgain: Bool = true
    ) async -> RunStatus {
        var reported = judged
        reported.verification = verification
        reported.verification?.bundle = shown
        if judgedAgain, let console {
            _ = await Session(console: console).run { events in
                judged.replay(to: events)
                return judged
            }
        }
        if !reports.isEmpty {
            let written = await Session(
                console: nil, reports: reports, credentialHeaders: kit.profile.credentialHeaderNames
            ).run(reported)
            guard written.problems.isEmpty else {
                for problem in written.problems { output.report(problem) }
                return .cannotRun
            }
        }
        output.out.write(verification.line + "\n")
        return BundleVerdict.status(of: verification, run: runStatus)
    }

    /// A bundle found TAMPERED before its run could be judged again: report files (when asked for) that say so
    /// with what was found, the run's own verdict unknown, and the last line.
    func tampered(_ why: String, found: [Diagnostic]) async -> RunStatus {
        let line = "Verification: TAMPERED (\(why))"
        let sealed = FileManager.default.fileExists(atPath: directory + "/" + BundleManifest.signatureFile)
        let verification = BundleVerification(
            verdict: .tampered,
            reasons: [why] + found.map { d in d.file.map { "\($0): \(d.message)" } ?? d.message },
            signature: sealed ? .notChecked : .unsigned, line: line)
        let unjudged = RunResult(command: .run, suites: [], duration: 0, target: shown)
        return await show(unjudged, verification, runStatus: .cannotRun, judgedAgain: false)
    }
}
