import ConformCore
import ConformDiagnostics
import ConformExplore
import ConformMobileMessaging
import ConformReference
import ConformReport
import ConformRunner
import Foundation

/// `conform explore`: options → ``Explorer`` → session → exit code.
enum ExploreCommand {
    static func main(_ parsed: Arguments, io: CommandIO) async throws(UsageError) -> Int32 {
        let target = try Target(
            parsing: parsed.value("--target") ?? "builtin", faults: parsed.values("--fault"),
            variants: parsed.values("--variant"), subcommand: "explore")
        let timeout = try parsed.duration("--timeout") ?? .seconds(10)
        let reports = try ReportRequest.all(parsed, subcommand: "explore", io: io)
        let seed = try parsed.integer("--seed").map(UInt64.init) ?? UInt64.random(in: 0...999_999)
        let budget = try Self.budget(parsed.value("--budget"))
        let mode = parsed.value("--application") ?? "all"
        if parsed.value("--depth") != nil, !parsed.has("--exhaustive") {
            throw UsageError(
                message: "--depth is the depth of --exhaustive; give --exhaustive too", subcommand: "explore")
        }
        let profile = ConformCommand.profile
        let defaults = target.variableDefaults(profile)
        let variables = try parsed.pairs("--var")
        let configuration = ExploreConfiguration(
            profile: profile, applicationMode: mode, seed: seed, budget: budget,
            maxLength: try parsed.integer("--max-length") ?? 12, devices: try parsed.integer("--devices") ?? 3,
            persons: try parsed.integer("--persons") ?? 2, window: try parsed.duration("--window") ?? .seconds(5),
            exhaustiveDepth: parsed.has("--exhaustive") ? (try parsed.integer("--depth") ?? 2) : nil,
            outDirectory: parsed.value("--out"), exchangeTimeout: timeout, targetDefaults: defaults,
            targetDescription: target.description)
        var exploration = configuration
        exploration.variables = variables.merging(RunPlan.variables(fromEnvironment: io.environment)) { given, _ in
            given
        }
        let transport: any Transport
        do {
            transport = try target.makeTransport(timeout: timeout).retrying(try parsed.retryPolicy())
        } catch {
            io.report(
                Diagnostic(.runTargetUnavailable, message: "cannot set up the target \(target.description): \(error)"))
            return ConformCommand.ExitCode.cannotRun
        }
        io.out.write("Exploring \(target.description) with seed \(seed) (budget \(budget)).\n")
        let report = await Explorer(configuration: exploration, target: transport).run()
        let color = io.color && !parsed.has("--no-color")
        let session = Session(
            console: ConsoleReporter(sink: io.out, color: color, verbose: parsed.has("--verbose")), reports: reports,
            credentialHeaders: ConformCommand.profile.credentialHeaderNames)
        let outcome = await session.run(report.result)
        for line in report.lines { io.out.write(line + "\n") }
        return io.status(of: outcome)
    }

    /// `--budget N|DURATION`: a number of sequences (1 to 1,000,000) or a time (1 s to 24 h).
    static func budget(_ text: String?) throws(UsageError) -> ExploreBudget {
        guard let text else { return .sequences(100) }
        if let n = Int(text), (1...1_000_000).contains(n) { return .sequences(n) }
        if let d = DurationText.parse(text, in: .seconds(1)...Duration.seconds(86_400)) { return .duration(d) }
        throw UsageError(
            message: "--budget takes a number of sequences (1 to 1000000) or a time from 1s to 24h, got '\(text)'",
            subcommand: "explore")
    }
}
