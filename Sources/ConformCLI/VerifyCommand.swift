import ConformCore
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
        let bundle: VerifiedBundle
        do {
            bundle = try VerifiedBundle(directory: directory, shown: path)
        } catch {
            io.report(error.diagnostic)
            io.out.write("Verification: TAMPERED (the bundle is incomplete, changed or holds what a bundle does not)\n")
            let found = RunResult.Verification(
                .tampered("the bundle is incomplete, changed or holds what a bundle does not"), bundle: path,
                details: [error.description])
            _ = await writeReports(requests, of: nil, verification: found, io: io)
            return ConformCommand.ExitCode.cannotRun
        }
        io.err.write("Bundle: \(path): \(bundle.manifest.entries.count + 1) files, each as its manifest says\n")
        if let problems = bundle.suiteProblems {
            io.err.write(problems)
            io.report(
                Diagnostic(
                    .bundleInvalid, message: "the bundle's suites have problems; nothing was judged",
                    help: "the bundle's suites are those the run loaded; make the bundle again"))
            let found = RunResult.Verification(
                .notVerified("the bundle's suites have problems; nothing was judged"), bundle: path)
            _ = await writeReports(requests, of: nil, verification: found, io: io)
            return ConformCommand.ExitCode.cannotRun
        }
        let kitSuites = bundle.suites.filter { SuiteFiles.bundledSuiteHashes().contains($0.contentHash) }.count
        io.err.write(
            kitSuites == bundle.suites.count
                ? "Suites: the bundle's \(bundle.suites.count) suites are this kit's bundled suites\n"
                : "Suites: \(bundle.suites.count - kitSuites) of the bundle's \(bundle.suites.count) suites are not this kit's bundled suites\n"
        )
        let info = bundle.info
        var suites = RunSelection(tags: info.tags, filters: info.filters, steps: info.steps).apply(bundle.suites)
        var shard = Shard.whole
        if let text = info.shard {
            shard = try ShardOption.parse(text, subcommand: "verify")
            suites = ShardPlacement.select(suites, shard: shard).suites
        }
        var plan = RunPlan(
            suites: suites, overrides: info.variables, targetDefaults: info.bases,
            targetDescription: info.target, functions: ConformCommand.profile.functions)
        plan.failFast = info.failFast
        plan.allowedHosts = info.allowedHosts
        plan.generatorSeed = info.seed
        var scope = RunCommand.scope(
            selection: RunCommand.selectionWords(tags: info.tags, filters: info.filters, steps: info.steps),
            suites: suites, shard: shard, failFast: info.failFast)
        // A suite that is not bundled is named by the path it was run from, not by its copy in the bundle (its
        // content is the manifest's to vouch for): the run's names, when the run had as many such suites.
        if let written = bundle.report.result.scope?.otherSuites, written.count == scope.otherSuites.count {
            scope.otherSuites = written
        }
        let session = Session(
            // The reports are written once the verification is known, titled by it (``writeReports``).
            console: ConsoleReporter(sink: io.out, color: color, verbose: parsed.has("--verbose")), reports: [],
            scope: scope, provenance: bundle.report.result.provenance)
        let runner = Runner(transport: bundle.transport)
        let outcome = await session.run { events in await runner.run(plan, events: events) }
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
            let found = RunResult.Verification(
                .tampered("a report cannot be read"), bundle: path, details: [error.description])
            _ = await writeReports(requests, of: judged, verification: found, io: io)
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
            io.out.write("Verification: TAMPERED (a report does not follow from the bundle's log)\n")
            let found = RunResult.Verification(
                .tampered("a report does not follow from the bundle's log"), bundle: path,
                details: disagreements.flatMap { file, differences in differences.map { "\(file): \($0)" } })
            _ = await writeReports(requests, of: judged, verification: found, io: io)
            return ConformCommand.ExitCode.cannotRun
        }
        io.err.write(
            "Verdict: judged again from the log, the same as each of the bundle's reports (JSON, JUnit, HTML) for all \(judged.stepCount) steps\n"
        )
        let status = io.status(of: outcome)
        let allowPartial = parsed.has("--allow-partial")
        let exit = verification(of: judged, status: status, allowPartial: allowPartial, io: io)
        let finding: RunResult.Verification.Finding =
            status == ConformCommand.ExitCode.cannotRun
            ? .notVerified("the run judged again could not run")
            : judged.certifiability == .certifiable ? .certifiable : .partial
        let found = RunResult.Verification(finding, bundle: path, partialAccepted: allowPartial)
        return await writeReports(requests, of: judged, verification: found, io: io) ?? exit
    }

    /// The last line of a verification, and its exit status: a bundle whose run is partial (a shard, a selection,
    /// suites of one's own) is intact but no certificate, so not a pass unless `--allow-partial` accepts it.
    static func verification(of judged: RunResult, status: Int32, allowPartial: Bool, io: CommandIO) -> Int32 {
        guard status != ConformCommand.ExitCode.cannotRun else {
            io.out.write("Verification: NOT VERIFIED (the run judged again could not run)\n")
            return status
        }
        let verdict = judged.outcome
        switch judged.certifiability ?? .partial(["the report does not say what the run covered"]) {
        case .certifiable:
            io.out.write("Verification: VERIFIED certifiable, \(verdict)\n")
            return status
        case .partial(let reasons):
            let why = reasons.joined(separator: "; ")
            if allowPartial {
                io.out.write("Verification: VERIFIED partial (\(why)), \(verdict); accepted with --allow-partial\n")
                return status
            }
            io.out.write(
                "Verification: VERIFIED partial (\(why)), \(verdict); no certificate: that is a whole run of the "
                    + "bundled plan with every step run (pass --allow-partial to accept a partial one)\n")
            return status == 0 ? 1 : status
        }
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
    /// The suites' problems, rendered, when they do not load.
    var suiteProblems: TerminalText?
    var transport: ExchangeLogTransport

    init(directory: String, shown: String) throws(BundleProblem) {
        manifest = try BundleManifest.check(directory: directory)
        info = try BundleInfo(
            json: try Self.bytes(CertificationBundle.infoFile, in: directory, limit: BundleInfo.maxFileBytes))
        let reportBytes = try Self.bytes(CertificationBundle.jsonReport, in: directory, limit: Self.maxReportBytes)
        do throws(RunReportError) {
            report = try RunReport.read(bytes: reportBytes, source: CertificationBundle.jsonReport)
            reportJSON = try RunReport.writtenVerdicts(bytes: reportBytes, source: CertificationBundle.jsonReport)
        } catch {
            throw BundleProblem(file: CertificationBundle.jsonReport, error.message, help: error.help)
        }
        try Self.checkFiles(manifest, info: info, product: report.result.provenance?.product, in: directory)
        var files: [(name: String, contents: Data?)] = []
        for name in info.suites {
            guard BundleManifest.isPlainRelative(name), manifest.entries.contains(where: { $0.path == name }) else {
                throw BundleProblem(
                    file: CertificationBundle.infoFile, "names the suite '\(name)', which the manifest does not list",
                    help: "the file is written by 'conform run --bundle DIR'; do not edit it")
            }
            // Refused above the size every suite file is loaded to, before it is read.
            files.append((shown + "/" + name, Data(try Self.bytes(name, in: directory, limit: YAMLLimits().maxBytes))))
        }
        let loaded = LoadedSuites(files: files, profile: ConformCommand.profile)
        suites = loaded.suites
        suiteProblems = loaded.notRun == nil ? nil : loaded.renderedProblems()
        transport = try ExchangeLogTransport(
            directory: (directory as NSString).appendingPathComponent(CertificationBundle.logDirectory), info: info)
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
