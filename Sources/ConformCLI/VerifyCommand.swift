import ConformCore
import ConformCrypto
import ConformDiagnostics
import ConformReport
import ConformRunner
import ConformTraffic
import ConformYAML
import Foundation

/// `conform verify DIR`: a certification bundle checked against its manifest, then its plan judged again from its
/// exchange log with its own suites, and the verdict of every step compared with the bundle's report.
enum VerifyCommand {
    static func main(_ parsed: Arguments, io: CommandIO) async throws(UsageError) -> Int32 {
        guard parsed.positionals.count == 1, let path = parsed.positionals.first else {
            throw UsageError(
                message: "verify takes one bundle directory (written by 'conform run --bundle DIR')",
                subcommand: "verify")
        }
        let requests = try ReportRequest.all(parsed, subcommand: "verify", io: io)
        let color = io.color && !parsed.has("--no-color")
        let directory = io.resolve(path)
        var key: (file: String, key: Ed25519.PublicKey)?
        if let file = parsed.value("--key") {
            switch BundleSignature.verifyingKey(file, io: io) {
            case .success(let found): key = (file, found)
            case .failure(let failure):
                io.report(failure.diagnostic)
                return ConformCommand.ExitCode.cannotRun
            }
        }
        let bundle: VerifiedBundle
        do {
            bundle = try VerifiedBundle(directory: directory, shown: path)
        } catch {
            io.report(error.diagnostic)
            return await tampered(
                "the bundle is incomplete, changed or holds what a bundle does not", found: [error.diagnostic],
                bundle: path, directory: directory, requests: requests, io: io)
        }
        io.err.write("Bundle: \(path): \(bundle.manifest.entries.count + 1) files, each as its manifest says\n")
        let signed: BundleSignature.Status
        switch BundleSignature.check(bundle, key: key, shown: path, io: io) {
        case .success(let status): signed = status
        case .failure(let exit): return exit.code
        }
        if let problems = bundle.suiteProblems {
            io.err.write(problems)
            io.report(
                Diagnostic(
                    .bundleInvalid, message: "the bundle's suites have problems; nothing was judged",
                    help: "the bundle's suites are those the run loaded; make the bundle again"))
            return ConformCommand.ExitCode.cannotRun
        }
        let kitSuites = bundle.suites.filter { SuiteFiles.bundledSuiteHashes().contains($0.contentHash) }.count
        io.err.write(
            kitSuites == bundle.suites.count
                ? "Suites: the bundle's \(bundle.suites.count) suites are this kit's bundled suites\n"
                : "Suites: \(bundle.suites.count - kitSuites) of the bundle's \(bundle.suites.count) suites are not this kit's bundled suites\n"
        )
        let modified = bundle.modifiedSuites(kitDirectory: SuiteFiles.bundledDirectory())
        for suite in modified { io.err.write(suite.rendered) }
        do {
            try bundle.checkSuitesAgainstProvenance()
        } catch {
            io.report(error.diagnostic)
            return await tampered(
                "a suite is not the one the run judged with", found: [error.diagnostic], bundle: path,
                directory: directory, requests: requests, io: io)
        }
        let outcome: Session.Outcome
        do {
            outcome = try await bundle.judge(
                console: ConsoleReporter(sink: io.out, color: color, verbose: parsed.has("--verbose")),
                reports: [])
        } catch let error as UsageError {
            throw error
        } catch {
            io.report(failure: error)
            io.out.write("Verification: TAMPERED (the shards of the merged bundle do not make one run)\n")
            return ConformCommand.ExitCode.cannotRun
        }
        guard let judged = outcome.result else { return io.status(of: outcome) }
        let sameKit = bundle.info.kitVersion == ConformCommand.version && bundle.info.kitCommit == ConformCommand.commit
        if !sameKit {
            io.err.write(
                "Reports: the bundle was written by conform \(bundle.info.kitVersion) (commit \(bundle.info.kitCommit)), not this kit; the certification the reports state and the HTML page's script and style were not compared\n"
            )
        }
        let disagreements: [(file: String, differences: [String])]
        do {
            disagreements = try bundle.disagreements(judged: judged, directory: directory, sameKit: sameKit)
        } catch {
            io.report(error.diagnostic)
            return ConformCommand.ExitCode.cannotRun
        }
        if !disagreements.isEmpty {
            for problem in outcome.problems { io.report(problem) }
            for (file, differences) in disagreements {
                let shown =
                    differences.prefix(10).map { "\n  \($0)" }.joined() + (differences.count > 10 ? "\n  …" : "")
                io.report(
                    Diagnostic(
                        .bundleDisagrees, file: path + "/" + file,
                        message:
                            "the report does not follow from the bundle's log (\(Noun("difference").counted(differences.count))):\(shown)",
                        help:
                            "the report or the log was changed, or the run cannot be judged again; make the bundle again"
                    ))
            }
            let line = "Verification: TAMPERED (a report does not follow from the bundle's log)"
            io.out.write(line + "\n")
            let verification = BundleVerification(
                verdict: .tampered,
                reasons: ["a report does not follow from the bundle's log"]
                    + disagreements.flatMap { file, differences in differences.map { "\(file): \($0)" } },
                modifiedSuites: modified.map(\.reported), signature: signed, line: line)
            return await report(
                judged, verification, bundle: path, requests: requests, status: ConformCommand.ExitCode.cannotRun,
                io: io)
        }
        io.err.write(
            "Verdict: judged again from the log, the same as each of the bundle's reports (JSON, JUnit, HTML) for all \(judged.stepCount) steps\n"
        )
        let (status, verification) = verification(
            of: judged, status: io.status(of: outcome), modified: modified, signed: signed,
            allowPartial: parsed.has("--allow-partial"), io: io)
        return await report(judged, verification, bundle: path, requests: requests, status: status, io: io)
    }
}

/// A bundle whose files match its manifest and are the files a bundle holds, read: its info, report, suites and
/// exchange log; its product file agrees with the report's provenance.
struct VerifiedBundle {
    var manifest: BundleManifest
    var info: BundleInfo
    var report: RunReport
    /// The JSON report as written, for what reading it back derives rather than reads (a suite's verdict, counts).
    var reportJSON: JSONValue
    var suites: [Suite]
    /// The suite files as the bundle holds them: the name inside the bundle, as shown (for messages), the bytes.
    var suiteFiles: [(name: String, shown: String, contents: Data)]
    /// The suites' problems, rendered, when they do not load.
    var suiteProblems: TerminalText?
    /// What is judged again, each from its own log: the run, or each shard of a bundle merged from shards.
    var parts: [Part]

    /// The manifest's bytes as read, which a signature signs.
    var manifestBytes: Data
    /// The detached signature of the manifest, when the bundle holds one.
    var signature: [UInt8]?

    init(directory: String, shown: String) throws(BundleProblem) {
        (manifest, manifestBytes) = try BundleManifest.checked(directory: directory)
        signature = try BundleSignature.read(in: directory)
        info = try BundleInfo(
            json: try Self.bytes(CertificationBundle.infoFile, in: directory, limit: BundleInfo.maxFileBytes))
        let reportBytes = try Self.bytes(CertificationBundle.jsonReport, in: directory, limit: Self.maxReportBytes)
        do throws(RunReportError) {
            report = try RunReport.read(bytes: reportBytes, source: CertificationBundle.jsonReport)
            reportJSON = try RunReport.writtenVerdicts(bytes: reportBytes, source: CertificationBundle.jsonReport)
        } catch {
            throw BundleProblem(file: CertificationBundle.jsonReport, error.message, help: error.help)
        }
        try Self.checkShardNames(info)
        try Self.checkFiles(manifest, info: info, product: report.result.provenance?.product, in: directory)
        var files: [(name: String, shown: String, contents: Data)] = []
        for name in info.suites {
            guard BundleManifest.isPlainRelative(name), manifest.entries.contains(where: { $0.path == name }) else {
                throw BundleProblem(
                    file: CertificationBundle.infoFile, "names the suite '\(name)', which the manifest does not list",
                    help: "the file is written by 'conform run --bundle DIR'; do not edit it")
            }
            // Refused above the size every suite file is loaded to, before it is read.
            files.append(
                (name, shown + "/" + name, Data(try Self.bytes(name, in: directory, limit: YAMLLimits().maxBytes))))
        }
        suiteFiles = files
        let loaded = LoadedSuites(
            files: files.map { (name: $0.shown, contents: Optional($0.contents)) }, profile: ConformCommand.profile)
        suites = loaded.suites
        suiteProblems = loaded.notRun == nil ? nil : loaded.renderedProblems()
        parts = try Self.parts(of: info, in: directory)
    }

    /// The members of the written JSON report that reading it back derives instead of reading (the verdict and
    /// counts of the run, each suite's verdict), where they differ from the run judged again.
    /// The certification (`certification`, `partialReasons`) is compared when `certification` is true.
    static func differences(written: JSONValue, judged: RunResult, certification: Bool = true) -> [String] {
        let again = JSONReporter(sink: MemorySink(), deterministic: true).render(judged)
        var out: [String] = []
        let keys = ["exitCode", "result", "counts"] + (certification ? ["certification", "partialReasons"] : [])
        for key in keys where written[key] != again[key] {
            out.append(
                "the report's \(key) is \(written[key]?.serialized() ?? "missing"), judged again \(again[key]?.serialized() ?? "missing")"
            )
        }
        let writtenSuites = written["suites"]?.arrayValue ?? [], againSuites = again["suites"]?.arrayValue ?? []
        for (a, b) in zip(writtenSuites, againSuites) where a["id"] != b["id"] || a["verdict"] != b["verdict"] {
            out.append(
                "suite \(a["id"]?.stringValue ?? "?"): the report says \(a["verdict"]?.stringValue ?? "nothing"), judged again \(b["verdict"]?.stringValue ?? "nothing")"
            )
        }
        if writtenSuites.count != againSuites.count {
            out.append("the report holds \(writtenSuites.count) suites, judged again \(againSuites.count)")
        }
        return out
    }

    /// Each step whose verdict differs between the bundle's report and the run judged again, or that only one of
    /// them holds, as `suite › flow › N. name: report says X, judged Y`.
    static func differences(report: RunResult, judged: RunResult) -> [String] {
        struct Key: Hashable {
            var suite: String
            var flow: String
            var index: Int
        }
        func verdicts(_ result: RunResult) -> [Key: (String, Verdict)] {
            var out: [Key: (String, Verdict)] = [:]
            for step in result.steps {
                out[Key(suite: step.suiteID, flow: step.flow, index: step.index)] = (step.name, step.verdict)
            }
            return out
        }
        let reported = verdicts(report), again = verdicts(judged)
        var out: [String] = []
        for key in Set(reported.keys).union(again.keys).sorted(by: {
            ($0.suite, $0.flow, $0.index) < ($1.suite, $1.flow, $1.index)
        }) {
            let name = reported[key]?.0 ?? again[key]?.0 ?? ""
            let a = reported[key].map { $0.1.rawValue } ?? "nothing"
            let b = again[key].map { $0.1.rawValue } ?? "nothing"
            if a != b {
                out.append(
                    "\(key.suite) › \(key.flow) › \(key.index + 1). \(name): the report says \(a), judged again \(b)")
            }
        }
        if out.isEmpty && report.exitCode != judged.exitCode {
            out.append("the report's exit code is \(report.exitCode), judged again \(judged.exitCode)")
        }
        return out
    }
}
