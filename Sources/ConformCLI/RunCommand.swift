import ConformCore
import ConformDiagnostics
import ConformReport
import ConformRunner
import Foundation

/// `conform run`: load suites, pick the target, run, report, exit 0/1/2.
enum RunCommand {
    /// A value given for a name no suite among those given declares or uses would be silently ignored (a
    /// misspelt `--var apikey=…` and the public default credentials used instead): a usage error with the closest
    /// name. A name only unselected suites use is fine, so one environment can serve every selection.
    static func checkVariableNames(
        _ overrides: [String: String], environment: [String: String], _ suites: [Suite]
    ) throws(UsageError) {
        var known = Set(ConformCommand.profile.baseNames)
        for suite in suites { known.formUnion(suite.names) }
        let given = overrides.keys.map { ("--var \($0)=…", $0) } + environment.keys.map { ("CONFORM_VAR_\($0)", $0) }
        for (source, name) in given.sorted(by: { $0.1 < $1.1 }) where !known.contains(name) {
            let suggestion = closestMatch(to: name, in: known.sorted()).map { "; did you mean '\($0)'?" } ?? ""
            throw UsageError(
                message: "\(source) sets '\(name)', which no suite given declares or uses\(suggestion)",
                subcommand: "run")
        }
    }

    static func main(_ args: [String], io: CommandIO) async throws(UsageError) -> Int32 {
        let parsed = try Arguments(args, command: .run)
        if parsed.has("--help") {
            io.out.write(CommandSpec.run.helpText)
            return 0
        }
        let overrides = try parsed.pairs("--var")
        let timeout = try parsed.duration("--timeout") ?? .seconds(10)
        let maxBody = try parsed.maxBody()
        let jobs = try parsed.integer("--jobs") ?? .max
        let reports = try parsed.values("--report").map { (spec: String) throws(UsageError) -> ReportRequest in
            try ReportRequest(parsing: spec)
        }
        let shard = try parsed.value("--shard").map { (text: String) throws(UsageError) in
            try ShardOption.parse(text, subcommand: "run")
        }
        let target = try Target(
            parsing: parsed.value("--target") ?? "builtin", faults: parsed.values("--fault"),
            variants: parsed.values("--variant"))
        let color = io.color && !parsed.has("--no-color")
        let repeats = try parsed.integer("--repeat") ?? 1
        let selection = RunSelection(
            tags: parsed.values("--tag"), filters: parsed.values("--filter"), steps: parsed.values("--step"))

        let files: [String]
        do {
            files = try SuiteFiles.expand(
                parsed.positionals.isEmpty ? [SuiteFiles.defaultDirectory(io: io)] : parsed.positionals, io: io)
        } catch {
            io.report(error.diagnostic)
            return ConformCommand.ExitCode.cannotRun
        }
        let loaded = SuiteFiles.load(files, io: io)
        if let notRun = loaded.notRun {
            io.err.write(loaded.renderedProblems(color: color))
            io.report(notRun)
            return ConformCommand.ExitCode.cannotRun
        }
        if loaded.suites.isEmpty {
            let named = parsed.positionals.isEmpty ? "suites" : parsed.positionals.joined(separator: " ")
            io.report(
                Diagnostic(
                    .suiteNotFound, message: "no suites found in \(named)",
                    help: "pass suite files (*.yaml) or directories holding them"))
            return ConformCommand.ExitCode.cannotRun
        }
        try checkVariableNames(
            overrides, environment: RunPlan.variables(fromEnvironment: io.environment), loaded.suites)
        // A shard runs the suites whose id hashes to it; the JSON report places them in the whole plan for merging.
        // Every shard selects alike, so the shards of a selection still make one whole run.
        var suites = selection.apply(loaded.suites)
        if suites.isEmpty {
            io.report(
                Diagnostic(
                    .runNoSelection, message: "no suite or step matches the selection (--tag, --filter, --step)",
                    help: "list what is there with 'conform run --list', then pick from it"))
            return ConformCommand.ExitCode.cannotRun
        }
        var placement = ShardPlacement.whole(suiteCount: suites.count)
        if let shard { (suites, placement) = ShardPlacement.select(suites, shard: shard) }
        if parsed.has("--list") {
            io.out.write(RunListing.render(suites, selection: selection))
            return 0
        }
        let clientTLS = try ClientTLSOptions.parse(parsed, subcommand: "run", io: io)
        let transport: any Transport
        do {
            transport = try target.makeTransport(
                timeout: timeout, insecure: parsed.has("--insecure"), maxBodyBytes: maxBody, tls: clientTLS)
        } catch {
            io.report(
                Diagnostic(.runTargetUnavailable, message: "cannot set up the target \(target.description): \(error)"))
            return ConformCommand.ExitCode.cannotRun
        }
        var plan = RunPlan(
            suites: suites, overrides: overrides,
            environment: RunPlan.variables(fromEnvironment: io.environment),
            targetDefaults: target.variableDefaults(ConformCommand.profile), exchangeTimeout: timeout,
            maxConcurrentSuites: jobs,
            targetDescription: target.description,
            functions: ConformCommand.profile.functions
        )
        plan.failFast = parsed.has("--fail-fast")
        plan.allowedHosts = try SuiteFiles.allowedHosts(parsed, subcommand: "run")
        var reporters: [any RunReporter] = [
            ConsoleReporter(sink: io.out, color: color, verbose: parsed.has("--verbose"))
        ]
        guard let files = ReportFile.open(reports, io: io) else { return ConformCommand.ExitCode.cannotRun }
        for file in files { reporters.append(file.request.reporter(sink: file.sink, placement: placement)) }
        // Memory stays flat however long the run: file reports read each exchange back from a spool on disk, and
        // the console shows only the exchanges of steps that did not pass.
        var retention = Runner.Retention.failures
        if !files.isEmpty { retention = (try? ExchangeSpool()).map { .spool($0) } ?? .memory }
        let fanout = ReporterFanout(reporters)
        let runner = Runner(transport: transport, retention: retention)
        let result: RunResult
        if repeats > 1 {
            // The repetitions run first; the reports then show each step once, with its worst verdict.
            result = await runner.run(plan, times: repeats) { n, run in
                io.err.write("Repetition \(n) of \(repeats): \(run.status.words.lowercased())\n")
            }
            RunListing.replay(result, to: fanout)
        } else {
            result = await runner.run(plan) { fanout.handle($0) }
        }
        guard ReportFile.finish(files, io: io) else { return ConformCommand.ExitCode.cannotRun }
        return result.exitCode
    }
}
