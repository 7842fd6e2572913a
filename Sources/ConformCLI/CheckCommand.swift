import ConformDiagnostics
import ConformFlowCheck
import ConformReport
import ConformTraffic
import Foundation

/// `conform check RECORDING_OR_HAR… [--events FILE] [--report KIND:FILE]…`: the client side of an integration against the flow's rules.
enum CheckCommand {
    static func main(_ parsed: Arguments, io: CommandIO) async throws(UsageError) -> Int32 {
        guard !parsed.positionals.isEmpty else {
            throw UsageError(message: "missing a recording or HAR file to check", subcommand: "check")
        }
        var configuration = FlowCheckConfiguration(profile: ConformCommand.profile)
        let codes = applicationCodes(parsed)
        configuration.disabledRules = Set(parsed.values("--disable"))
        // The rules are the profile's: --disable names one of them.
        let known = configuration.rules.map(\.id)
        if let unknown = configuration.disabledRules.sorted().first(where: { !known.contains($0) }) {
            throw UsageError(
                message: "--disable takes a rule id of the protocol's flow, got '\(unknown)'"
                    + (closestMatch(to: unknown, in: known).map { "; did you mean '\($0)'?" } ?? "")
                    + "; the rules: \(known.joined(separator: ", "))",
                subcommand: "check")
        }
        let session = Session(
            console: HARCommands.console(io: io, verbose: parsed.has("--verbose")),
            reports: try ReportRequest.all(parsed, subcommand: "check", io: io),
            credentialHeaders: ConformCommand.profile.credentialHeaderNames)
        let started = ContinuousClock.now
        var traces: [FlowCheckReport.Trace] = []
        // What the traces held, for the summary: a check of nothing is no pass.
        var exchanges = 0
        var appEvents = 0
        var placing = ApplicationCodes.Placing(codes: codes)
        for path in parsed.positionals {
            do {
                let placed =
                    codes.isEmpty
                    ? ApplicationCodes.Resolution()
                    : try await codes.place(in: try TrafficSupport.trace(path, io: io), profile: ConformCommand.profile)
                for note in placing.add(placed, trace: path) { io.err.write(note + "\n") }
                let configuration = codes.applied(to: configuration, aliases: placed.aliases)
                var events: [AppEvent] = []
                if let file = parsed.value("--events") {
                    events = try AppEventsFile.load(path: io.resolve(file), displayName: file)
                    appEvents += events.count
                }
                let trace = try await check(path, events: events, configuration: configuration, io: io)
                exchanges += trace.exchanges
                appEvents += trace.events
                traces.append(trace.checked)
            } catch {
                io.report(failure: error)
                return ConformCommand.ExitCode.cannotRun
            }
        }
        // A code that cannot be placed is a usage error.
        if let first = placing.ambiguous.first { throw UsageError(message: first, subcommand: "check") }
        for warning in placing.warnings { io.err.write(warning + "\n") }
        let eventsText = appEvents > 0 ? " and \(appEvents) app event\(appEvents == 1 ? "" : "s")" : ""
        io.out.write("Checked \(exchanges) exchange\(exchanges == 1 ? "" : "s")\(eventsText)\n")
        let result = FlowCheckReport.result(
            traces, rules: configuration.judgedRules, duration: ReportRequest.seconds(since: started))
        return io.status(of: await session.run(result))
    }

    /// Checks one trace in one pass, whatever its format: the checker reads the records (in start order, the causal
    /// one) and the tally counts them.
    static func check(
        _ path: String, events: [AppEvent], configuration: FlowCheckConfiguration, io: CommandIO
    ) async throws -> (checked: FlowCheckReport.Trace, exchanges: Int, events: Int) {
        let records = try TrafficSupport.trace(path, io: io).records(
            order: .start, onWarning: TrafficSupport.warnings(io))
        let result = try await FlowChecker.check(recording: records, events: events, configuration: configuration)
        let tally = records.tally
        // A rule broken only where the trace lacks a body or a response is not a finding: the result names what is
        // missing, and the check cannot judge.
        let checked = FlowCheckReport.Trace(
            path: path, violations: result.violations, notes: result.notes, exercised: result.exercised,
            incomplete: tally.incompleteExchanges, incompleteCount: tally.incomplete, unreadable: tally.unreadable,
            exchanges: tally.exchanges, events: tally.events + events.count, showedFlow: result.showedFlow,
            judged: result.judged)
        return (checked, tally.exchanges, tally.events)
    }
}
