import ConformCore
import ConformDiagnostics
import ConformReport
import ConformTraffic
import Foundation

/// The end of a verification: its own verdict (the last line and the exit status), then the report files, which
/// show the run judged again with that verdict (``RunResult/verification``).
extension VerifyCommand {
    /// The last line of a verification, and its exit status: a bundle whose run is partial (a shard, a selection,
    /// suites of one's own) is intact but no certificate, so not a pass unless `--allow-partial` accepts it.
    /// A suite of the bundle that is a bundled suite modified (`modified`) makes the run partial whatever its
    /// certification says, and is named first.
    static func verification(
        of judged: RunResult, status: Int32, modified: [ModifiedSuite] = [], signed: BundleVerification.Signature,
        allowPartial: Bool, io: CommandIO
    ) -> (status: Int32, verification: BundleVerification) {
        let suites = modified.map(\.reported)
        func said(_ verdict: BundleVerification.Verdict, _ reasons: [String], _ line: String, accepted: Bool = false)
            -> BundleVerification
        {
            io.out.write(line + "\n")
            return BundleVerification(
                verdict: verdict, reasons: reasons, acceptedPartial: accepted, modifiedSuites: suites,
                signature: signed, line: line)
        }
        guard status != ConformCommand.ExitCode.cannotRun else {
            let why = "the run judged again could not run"
            return (status, said(.notVerified, [why], "Verification: NOT VERIFIED (\(why))"))
        }
        let verdict = judged.outcome
        var certifiability = judged.certifiability ?? .partial(["the report does not say what the run covered"])
        if !modified.isEmpty {
            let names = modified.prefix(5).map { "\($0.kitFile) (\($0.file))" }.joined(separator: ", ")
            let reason =
                Noun("suite").counted(modified.count) + " modified from this kit's bundled suites: " + names
                + (modified.count > 5 ? ", …" : "")
            certifiability = .partial([reason] + certifiability.reasons)
        }
        switch certifiability {
        case .certifiable:
            return (status, said(.certifiable, [], "Verification: VERIFIED certifiable, \(verdict), \(signed.words)"))
        case .partial(let reasons):
            let why = reasons.joined(separator: "; ")
            if allowPartial {
                let line =
                    "Verification: VERIFIED partial (\(why)), \(verdict), \(signed.words); accepted with --allow-partial"
                return (status, said(.partial, reasons, line, accepted: true))
            }
            let line =
                "Verification: VERIFIED partial (\(why)), \(verdict), \(signed.words); no certificate: that is a whole "
                + "run of the bundled plan with every step run (pass --allow-partial to accept a partial one)"
            return (status == 0 ? 1 : status, said(.partial, reasons, line))
        }
    }

    /// Writes the report files asked for (`--report`): the run judged again, with the verification; `status`, or
    /// 2 when a report cannot be written.
    static func report(
        _ judged: RunResult, _ verification: BundleVerification, bundle: String, requests: [ReportTarget],
        status: Int32, io: CommandIO
    ) async -> Int32 {
        guard !requests.isEmpty else { return status }
        var result = judged
        result.verification = verification
        result.verification?.bundle = bundle
        let outcome = await Session(console: nil, reports: requests).run(result)
        guard outcome.problems.isEmpty else {
            for problem in outcome.problems { io.report(problem) }
            return ConformCommand.ExitCode.cannotRun
        }
        return status
    }

    /// A bundle found TAMPERED before its run could be judged again: the last line, and report files (when asked
    /// for) that say so with what was found, the run's own verdict unknown.
    static func tampered(
        _ why: String, found: [Diagnostic], bundle: String, directory: String, requests: [ReportTarget],
        io: CommandIO
    ) async -> Int32 {
        let line = "Verification: TAMPERED (\(why))"
        io.out.write(line + "\n")
        let sealed = FileManager.default.fileExists(atPath: directory + "/" + BundleManifest.signatureFile)
        let verification = BundleVerification(
            verdict: .tampered,
            reasons: [why] + found.map { d in d.file.map { "\($0): \(d.message)" } ?? d.message },
            signature: sealed ? .notChecked : .unsigned, line: line)
        let unjudged = RunResult(command: .run, suites: [], duration: 0, target: bundle)
        return await report(
            unjudged, verification, bundle: bundle, requests: requests, status: ConformCommand.ExitCode.cannotRun,
            io: io)
    }
}

extension ModifiedSuite {
    /// The suite as reports show it: its diff cut where the console cuts it.
    var reported: BundleVerification.ModifiedSuite {
        BundleVerification.ModifiedSuite(
            file: file, id: id, kitFile: kitFile, changedLines: diff?.changed ?? 0,
            diff: Array((diff?.lines ?? []).prefix(Self.maxShownLines)),
            hiddenLines: max(0, (diff?.lines.count ?? 0) - Self.maxShownLines))
    }
}
