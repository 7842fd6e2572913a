import ConformBundles
import ConformCore
import ConformCrypto
import ConformDiagnostics
import ConformReport
import ConformRunner
import Foundation

/// `conform run`: load suites, pick the target, run, report, exit 0/1/2.
enum RunCommand {
    /// A `--var` for a name no suite given uses is a usage error, a `CONFORM_VAR_*` one a note
    /// (``SuiteRun/unusedVariables(overrides:environment:suites:profile:bundledUsers:)``).
    static func checkVariableNames(
        _ overrides: [String: String], environment: [String: String], _ suites: [Suite], io: CommandIO
    ) throws(UsageError) {
        let (refused, notes) = SuiteRun.unusedVariables(
            overrides: overrides, environment: environment, suites: suites, profile: ConformCommand.profile
        ) { SuiteFiles.variableUsers(profile: ConformCommand.profile, resolve: io.resolve) }
        if let refused { throw UsageError(message: refused, subcommand: "run") }
        for note in notes { io.err.write(note + "\n") }
    }

    /// The credentials `suites` send with the profile's public defaults, when the target is not the embedded
    /// reference (``SuiteRun/publicDefaultCredentials(_:given:profile:)``): a warning naming each, at start; their
    /// names go to the plan (``RunPlan/defaultCredentials``), which judges a run they got refused as one that could
    /// not run.
    static func warnDefaultCredentials(
        _ suites: [Suite], given: [String: String], target: Target, io: CommandIO
    ) -> [String] {
        if case .builtin = target { return [] }
        let defaulted = SuiteRun.publicDefaultCredentials(suites, given: given, profile: ConformCommand.profile)
        for name in defaulted {
            io.err.write(SuiteRun.publicDefaultWarning(name, target: target.description) + "\n")
        }
        return defaulted
    }

    static func main(_ parsed: Arguments, io: CommandIO) async throws(UsageError) -> Int32 {
        let overrides = try parsed.pairs("--var")
        let timeout = try parsed.duration("--timeout") ?? .seconds(10)
        let maxBody = try parsed.maxBody()
        let jobs = try parsed.integer("--jobs") ?? .max
        let reports = try ReportRequest.all(parsed, subcommand: "run", io: io)
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

        guard let product = io.reported(try Self.product(parsed, io: io)) else {
            return ConformCommand.ExitCode.cannotRun
        }
        guard let signingKey = io.reported(try BundleKeyOption.sign(parsed, io: io)) else {
            return ConformCommand.ExitCode.cannotRun
        }
        guard
            let (suites, placement, planSuites) = try chosenSuites(
                parsed, selection: selection, shard: shard, overrides: overrides, color: color, io: io)
        else { return ConformCommand.ExitCode.cannotRun }
        if parsed.has("--list") {
            io.out.write(RunListing.render(suites, selection: selection))
            return 0
        }
        let clientTLS = try ClientTLSOptions.parse(parsed, subcommand: "run", io: io)
        let proxy = try ProxyOption.parse(parsed, target: target)
        let retry = try parsed.retryPolicy()
        var transport: any Transport
        do {
            transport = try target.makeTransport(
                timeout: timeout, insecure: parsed.has("--insecure"), maxBodyBytes: maxBody, tls: clientTLS,
                proxy: proxy
            ).retrying(retry)
        } catch {
            io.report(
                Diagnostic(.runTargetUnavailable, message: "cannot set up the target \(target.description): \(error)"))
            return ConformCommand.ExitCode.cannotRun
        }
        var run = SuiteRun(
            suites: suites, planSuites: planSuites, overrides: overrides,
            environment: RunPlan.variables(fromEnvironment: io.environment),
            targetDefaults: target.variableDefaults(ConformCommand.profile), exchangeTimeout: timeout,
            maxConcurrentSuites: jobs, targetDescription: target.description, profile: ConformCommand.profile)
        run.plan.failFast = parsed.has("--fail-fast")
        run.plan.allowedHosts = try SuiteFiles.allowedHosts(parsed, subcommand: "run")
        // A bundle's run keeps its exchanges and draws its generated values from a seed, so `verify` can play it.
        let bundle = try parsed.value("--bundle").map { (path: String) throws(UsageError) -> RunBundle? in
            guard repeats == 1 else {
                throw UsageError(message: "--bundle records one run; leave out --repeat", subcommand: "run")
            }
            return RunBundle.open(
                io.resolve(path), shown: path, signingKey: signingKey, kit: .cli, output: io.bundleConsole)
        }
        // Learned from where the plan sends them: masked in every report, left out of a bundle, and known to its
        // log's redactor before the first exchange is written.
        let credentials = run.credentials
        run.plan.defaultCredentials = warnDefaultCredentials(suites, given: run.given, target: target, io: io)
        var console: any RunReporter = ConsoleReporter(
            sink: io.out, color: color, verbose: parsed.has("--verbose"), masker: run.masker)
        if let bundle {
            guard let bundle else { return ConformCommand.ExitCode.cannotRun }
            bundle.log.learn(credentials: credentials.values)
            transport = bundle.log.transport(around: transport)
            run.plan.generatorSeed = bundle.seed
            // The run's verdict is shown once the bundle is sealed: a run that gives no bundle shows none.
            console = HeldSummary(console)
        }
        let session = run.session(
            console: console, reports: reports + (bundle??.reports ?? []), placement: placement,
            scope: scope(parsed, suites: suites, placement: placement, io: io),
            provenance: run.provenance(
                commandLine: ["conform", parsed.subcommand] + parsed.given, product: product))
        let outcome = await run.run(through: transport, in: session, times: repeats) { n, result in
            io.err.write("Repetition \(n) of \(repeats): \(result.status.words.lowercased())\n")
        }
        if let bundle = bundle ?? nil {
            guard
                bundle.finish(
                    plan: run.plan, planSuites: planSuites, selection: selection, shard: parsed.value("--shard"),
                    credentials: credentials, product: product, resolve: io.resolve, output: io.bundleConsole)
            else {
                for problem in outcome.problems { io.report(problem) }
                return ConformCommand.ExitCode.cannotRun
            }
            (console as? HeldSummary)?.release()
        }
        return io.status(of: outcome)
    }

    /// The suites a run plays, loaded, checked and selected (`--tag`, `--filter`, `--step`, `--shard`), with their
    /// place in the whole plan; `nil` once what keeps the run from starting is reported.
    static func chosenSuites(
        _ parsed: Arguments, selection: RunSelection, shard: Shard?, overrides: [String: String], color: Bool,
        io: CommandIO
    ) throws(UsageError) -> (suites: [Suite], placement: ShardPlacement, plan: [Suite])? {
        let files: [String]
        do {
            files = try SuiteFiles.given(parsed.positionals, io: io)
        } catch {
            io.report(error.diagnostic)
            return nil
        }
        let loaded = SuiteFiles.load(files, io: io)
        if let notRun = loaded.notRun {
            io.err.write(loaded.renderedProblems(color: color))
            io.report(notRun)
            return nil
        }
        if loaded.suites.isEmpty {
            let named = parsed.positionals.isEmpty ? "suites" : parsed.positionals.joined(separator: " ")
            io.report(
                Diagnostic(
                    .suiteNotFound, message: "no suites found in \(named)",
                    help: "pass suite files (*.yaml) or directories holding them"))
            return nil
        }
        try checkVariableNames(
            overrides, environment: RunPlan.variables(fromEnvironment: io.environment), loaded.suites, io: io)
        // A shard runs the suites whose id hashes to it; the JSON report places them in the whole plan for merging.
        switch loaded.chosen(selection: selection, shard: shard) {
        case .success(let chosen): return (chosen.suites, chosen.placement, loaded.suites)
        case .failure(let problem):
            io.report(problem)
            return nil
        }
    }
}
