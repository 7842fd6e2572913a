import ConformCore
import ConformDiagnostics
import ConformReport
import ConformRunner
import ConformServer
import Foundation

/// `conform mock [SUITES…]`: Conform plays the server the suites describe, for testing a client or an SDK.
enum MockCommand {
    static func main(_ args: [String], io: CommandIO) async throws(UsageError) -> Int32 {
        let parsed = try Arguments(args, command: .mock)
        if parsed.has("--help") {
            io.out.write(CommandSpec.mock.helpText)
            return 0
        }
        let port = try parsed.port("--port") ?? 0
        let timeout = try parsed.duration("--timeout")
        let overrides = try parsed.pairs("--var")
        let reports = try ReportRequest.all(parsed, subcommand: "mock")
        let suites: [Suite]
        do {
            guard parsed.positionals.count == 1,
                parsed.positionals[0].hasSuffix(".yaml") || parsed.positionals[0].hasSuffix(".yml")
            else {
                // Several suites start with the same requests (a registration): a server cannot tell which
                // scenario a client is playing, so it plays one at a time.
                throw UsageError(
                    message: "mock plays one suite file at a time, e.g. 'conform mock suites/02-login.yaml'",
                    subcommand: "mock")
            }
            let files = try SuiteFiles.expand(parsed.positionals, io: io)
            let loaded = SuiteFiles.load(files, io: io)
            if loaded.problemCount > 0 {
                io.err.write(loaded.renderedProblems(color: io.color))
                return ConformCommand.ExitCode.cannotRun
            }
            suites = loaded.suites
        } catch let error as UsageError {
            throw error
        } catch let error as CLIFailure {
            io.report(error.diagnostic)
            return ConformCommand.ExitCode.cannotRun
        } catch {
            io.report(ConformCommand.diagnostic(for: error))
            return ConformCommand.ExitCode.cannotRun
        }
        let mock = SuiteMock(suites: suites, overrides: overrides, profile: ConformCommand.profile)
        let host = parsed.value("--host") ?? "127.0.0.1"
        guard let tls = try ListenerTLS.resolve(parsed, host: host, subcommand: "mock", io: io) else {
            return ConformCommand.ExitCode.cannotRun
        }
        let server: Listeners
        do {
            server = try Listeners.start(host: host, port: port, tls: tls) { _ in mock }
        } catch {
            io.report(
                Diagnostic(
                    .cliCannotListen, message: "cannot listen: \(error)",
                    help: "pick a free port with --port, or 0 for any"))
            return ConformCommand.ExitCode.cannotRun
        }
        let steps = suites.reduce(0) { $0 + $1.stepCount }
        io.out.write("Mocking \(suites[0].id) (\(steps) steps) on \(server.baseURL)\n")
        server.announce(io)
        io.out.write(
            parsed.has("--until-done")
                ? "Stops when every step has been played, or on Ctrl-C.\n"
                : "Press Ctrl-C to stop and see the report.\n")
        let untilDone = parsed.has("--until-done")
        let started = ContinuousClock.now
        let stopAt = timeout.map { started + $0 }
        await ServeCommand.waitForTermination(orUntil: {
            untilDone && mock.isDone || stopAt.map { .now >= $0 } ?? false
        })
        server.stop()
        let report = mock.report()
        io.out.write("\nPlayed \(report.matched.count) exchange\(report.matched.count == 1 ? "" : "s").\n")
        for entry in report.unmatched {
            io.out.write("unmatched: \(entry.request.method) \(entry.request.target)\n")
            if !entry.step.isEmpty {
                io.out.write("    closest step: \(entry.suiteID) › \(entry.flow) › \(entry.step) (\(entry.location))\n")
            }
            for m in entry.mismatches { io.out.write("    \(m.path): expected \(m.expected), got \(m.actual)\n") }
        }
        for pending in report.pending { io.out.write("not reached: \(pending)\n") }
        // The session's result decides the exit status, so a report and the exit status always agree.
        let result = mock.result(target: "client of \(server.baseURL)", duration: ReportRequest.seconds(since: started))
        guard ReportRequest.write(reports, for: result, io: io) else { return ConformCommand.ExitCode.cannotRun }
        io.out.write(
            result.status == .conforms
                ? "Result: the client played every step\n" : "Result: the client did not follow the suites\n")
        return result.exitCode
    }
}
