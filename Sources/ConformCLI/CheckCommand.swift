import ConformReport
import ConformTraffic
import Foundation
import Synchronization

/// `conform check RECORDING_OR_HAR… [--events FILE] [--report KIND:FILE]…`: the client side of an integration against the flow's rules.
enum CheckCommand {
    static func main(_ args: [String], io: CommandIO) async throws(UsageError) -> Int32 {
        let parsed = try Arguments(args, command: .check)
        if parsed.has("--help") {
            io.out.write(CommandSpec.check.helpText)
            return 0
        }
        guard !parsed.positionals.isEmpty else {
            throw UsageError(message: "missing a recording or HAR file to check", subcommand: "check")
        }
        var configuration = FlowCheckConfiguration(profile: ConformCommand.profile)
        if !parsed.values("--restricted").isEmpty {
            configuration.restrictedApplicationCodes = Set(parsed.values("--restricted"))
        }
        if !parsed.values("--restricted-access").isEmpty {
            configuration.accessRestrictedApplicationCodes = Set(parsed.values("--restricted-access"))
        }
        if !parsed.values("--jwt").isEmpty { configuration.jwtApplicationCodes = Set(parsed.values("--jwt")) }
        configuration.disabledRules = Set(parsed.values("--disable"))
        let known = Set(FlowRule.all.map(\.id))
        if let unknown = configuration.disabledRules.first(where: { !known.contains($0) }) {
            throw UsageError(
                message:
                    "--disable takes a rule id (\(FlowRule.all.map(\.id).joined(separator: ", "))), got '\(unknown)'",
                subcommand: "check")
        }
        let reports = try ReportRequest.all(parsed, subcommand: "check")
        let started = ContinuousClock.now
        var traces: [FlowCheckReport.Trace] = []
        var total = 0
        var unjudged = 0
        let unreadable = Atomic(0)
        // What the traces held, for the summary: a check of nothing is no pass.
        var exchanges = 0
        var appEvents = 0
        for path in parsed.positionals {
            do {
                var events: [AppEvent] = []
                if let file = parsed.value("--events") {
                    events = try AppEventsFile.load(path: io.resolve(file), displayName: file)
                    appEvents += events.count
                }
                // One pass: the checker reads the records (in start order, the causal one), the tally counts them.
                let records = try TrafficSupport.trace(path, io: io).records(
                    order: .start, onWarning: TrafficSupport.warnings(io))
                let result = try await FlowChecker.check(
                    recording: records, events: events,
                    configuration: configuration)
                exchanges += records.tally.exchanges
                appEvents += records.tally.events
                unreadable.add(records.tally.unreadable, ordering: .relaxed)
                // A rule broken only where the trace lacks a body or a response is not a finding: name what is missing.
                for e in records.tally.incompleteExchanges {
                    io.out.write("\(path): exchange \(e.seq) \(e.method) \(e.target): cannot judge: \(e.omitted)\n")
                }
                let unnamed = records.tally.incomplete - records.tally.incompleteExchanges.count
                if unnamed > 0 { io.out.write("\(path): \(unnamed) more exchanges cannot be judged\n") }
                unjudged += records.tally.incomplete
                for v in result.violations { io.out.write(v.diagnostic(file: path).rendered(sourceLine: nil) + "\n") }
                for note in result.notes { io.out.write("\(path): note: \(note)\n") }
                total += result.violations.count
                traces.append(FlowCheckReport.Trace(path: path, violations: result.violations, notes: result.notes))
            } catch {
                io.report(failure: error)
                return ConformCommand.ExitCode.cannotRun
            }
        }
        if !reports.isEmpty {
            let rules = FlowRule.all.filter { !configuration.disabledRules.contains($0.id) }
            var result = FlowCheckReport.result(traces, rules: rules, duration: ReportRequest.seconds(since: started))
            if exchanges == 0 {
                // No exchange, no rule exercised: every report says the check could not judge, never that it passed.
                for s in result.suites.indices {
                    for i in result.suites[s].steps.indices {
                        result.suites[s].steps[i].verdict = .error
                        result.suites[s].steps[i].errors = [
                            StepError(.cannotJudge, "cannot judge: the traffic holds no exchange to check this rule on")
                        ]
                    }
                }
            }
            if !ReportRequest.write(reports, for: result, io: io) { return ConformCommand.ExitCode.cannotRun }
        }
        let eventsText = appEvents > 0 ? " and \(appEvents) app event\(appEvents == 1 ? "" : "s")" : ""
        io.out.write("Checked \(exchanges) exchange\(exchanges == 1 ? "" : "s")\(eventsText)\n")
        if exchanges == 0 {
            io.out.write(
                "Nothing to judge: the traffic holds no exchange the flow's rules can be checked on\n"
                    + "Result: CANNOT JUDGE\n")
            return ConformCommand.ExitCode.cannotRun
        }
        let skipped = unreadable.load(ordering: .relaxed)
        if skipped > 0 {
            io.out.write(
                "\(skipped) unreadable record\(skipped == 1 ? "" : "s") skipped (see the warnings); what they held was not "
                    + "checked\n")
            if unjudged == 0 {
                io.out.write(
                    (total > 0
                        ? "\(total) violation\(total == 1 ? "" : "s") found in what could be read, which may follow "
                            + "from the skipped lines\n" : "") + "Result: CANNOT JUDGE\n")
                return ConformCommand.ExitCode.cannotRun
            }
        }
        if unjudged > 0 {
            io.out.write(
                "\(unjudged) exchange\(unjudged == 1 ? "" : "s") cannot be judged (bodies or responses missing from the "
                    + "trace)\(total > 0 ? "; \(total) violation\(total == 1 ? "" : "s") found, which may follow from them" : "")\n"
                    + "Result: CANNOT JUDGE\n")
            return ConformCommand.ExitCode.cannotRun
        }
        io.out.write(
            total == 0
                ? "The traffic follows the flow: no violations\n"
                : "\(total) violation\(total == 1 ? "" : "s") of the flow\n")
        return total == 0 ? 0 : ConformCommand.ExitCode.mismatch
    }
}
