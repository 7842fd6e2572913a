import ConformBundles
import ConformCore
import ConformCrypto
import ConformDiagnostics
import ConformReport
import ConformRunner
import Foundation

/// `conform run`: load suites, pick the target, run, report, exit 0/1/2.
enum RunCommand {
    /// A `--var` for a name no suite among those given declares or uses would be silently ignored (a misspelt
    /// `--var apikey=…` and the public default credentials used instead): a usage error with the closest name, or the
    /// bundled suite that uses it. A name only unselected suites use is fine, so one environment can serve every
    /// selection. The environment's `CONFORM_VAR_*` serve a whole plan (a CI exports them all and runs one suite per
    /// job): one no suite given uses is a note on stderr, never an error.
    static func checkVariableNames(
        _ overrides: [String: String], environment: [String: String], _ suites: [Suite], io: CommandIO
    ) throws(UsageError) {
        var known = Set(ConformCommand.profile.baseNames)
        for suite in suites { known.formUnion(suite.names) }
        lazy var bundled = bundledUsers(io: io)
        func closest(_ name: String) -> String {
            closestMatch(to: name, in: known.sorted()).map { "; did you mean '\($0)'?" } ?? ""
        }
        for name in overrides.keys.sorted() where !known.contains(name) {
            let hint = bundled[name].map { "; the bundled suite \($0) uses it: pass that suite too" } ?? closest(name)
            throw UsageError(
                message: "--var \(name)=… sets '\(name)', which no suite given declares or uses\(hint)",
                subcommand: "run")
        }
        for name in environment.keys.sorted() where !known.contains(name) && overrides[name] == nil {
            let hint = bundled[name].map { " (the bundled suite \($0) uses it)" } ?? closest(name)
            io.err.write("note: CONFORM_VAR_\(name) sets '\(name)', which no suite given uses\(hint); ignored\n")
        }
    }

    /// The variables of the bundled suites, each with the file of the first suite that uses it: for the hint of a
    /// variable no suite given uses. Empty when the bundled suites are not found or do not load.
    static func bundledUsers(io: CommandIO) -> [String: String] {
        guard let files = try? SuiteFiles.expand([SuiteFiles.defaultDirectory(io: io)], io: io) else { return [:] }
        var users: [String: String] = [:]
        for suite in SuiteFiles.load(files, io: io).suites {
            for name in suite.names where users[name] == nil { users[name] = suite.file }
        }
        return users
    }

    /// The credentials `suites` send that the run was given no value for, when the target is not the embedded
    /// reference: the suites' defaults (the reference's public test codes) would go to a live implementation, which
    /// answers 401 and reads as a failure of its own. A warning naming each, at start; their names go to the plan
    /// (``RunPlan/defaultCredentials``), which judges a run they got refused as one that could not run.
    @discardableResult
    static func warnDefaultCredentials(
        _ suites: [Suite], given: [String: String], target: Target, io: CommandIO
    ) -> [String] {
        if case .builtin = target { return [] }
        let credentials = Suite.credentialVariables(of: suites, profile: ConformCommand.profile)
        let publicValues = Set(ConformCommand.profile.redaction.publicValues)
        // Only defaults that are the reference's own credentials: a deliberately wrong one (a refusal test's) is
        // meant to go anywhere.
        var publicDefaults: Set<String> = []
        for suite in suites {
            for variable in suite.variables {
                if case .string(let template) = variable.defaultValue, publicValues.contains(template.source) {
                    publicDefaults.insert(variable.name)
                }
            }
        }
        let defaulted = credentials.sorted().filter { given[$0] == nil && publicDefaults.contains($0) }
        for name in defaulted {
            io.err.write(
                "warning: no value given for '\(name)', a credential the suites send: their default (the reference's "
                    + "public one) goes to \(target.description); give it with CONFORM_VAR_\(name) or --var \(name)=…\n"
            )
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

        let product: ProductIdentity?
        switch try Self.product(parsed, io: io) {
        case .success(let given): product = given
        case .failure(let failure):
            io.report(failure.diagnostic)
            return ConformCommand.ExitCode.cannotRun
        }
        let signingKey: Ed25519.PrivateKey?
        switch try BundleKeyOption.sign(parsed, io: io) {
        case .success(let key): signingKey = key
        case .failure(let failure):
            io.report(failure.diagnostic)
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
        // Every shard selects alike, so the shards of a selection still make one whole run.
        var suites = selection.apply(loaded.suites)
        if suites.isEmpty {
            io.report(
                Diagnostic(
                    .runNoSelection, message: "no suite or step matches the selection (--tag, --filter, --step)",
                    help: "list what is there with 'conform run --list', then pick from it"))
            return nil
        }
        var placement = ShardPlacement.whole(suiteCount: suites.count)
        if let shard { (suites, placement) = ShardPlacement.select(suites, shard: shard) }
        return (suites, placement, loaded.suites)
    }
}
