import ConformCore
import ConformDiagnostics
import ConformProxy
import ConformReport
import ConformRunner
import ConformServer
import ConformTransports
import Foundation

/// `conform mock [SUITES…]`: Conform plays the server the suites describe, for testing a client or an SDK.
enum MockCommand {
    static func main(_ parsed: Arguments, io: CommandIO) async throws(UsageError) -> Int32 {
        let port = try parsed.port("--port") ?? 0
        let timeout = try parsed.duration("--timeout")
        let overrides = try parsed.variables()
        let reports = try ReportRequest.all(parsed, subcommand: "mock", io: io)
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
        let limits = try parsed.serverLimits()
        // Injected faults sit in front of the suite: a call they fail never reaches it, so its step waits for the
        // client to send it again.
        let faulty = try ClientFaultsOption.wrap(
            InProcessTransport(mock), parsed, holdLimit: .seconds(limits.requestTimeoutSeconds) + .seconds(1),
            subcommand: "mock", io: io)
        let handler: any HTTPHandler =
            faulty is ClientFaultTransport
            ? AsyncHandlerAdapter(errorEnvelope: mock.errorEnvelope) { request in
                do {
                    return try await faulty.send(request)
                } catch {
                    // An injected timeout: the client gets no answer.
                    var closed = HTTPResponse.empty(504)
                    closed.dropsConnection = true
                    return closed
                }
            } : mock
        // The codes the suite expects a client to send are masked wherever the session shows a difference.
        let credentials = RunCredentials(plan: suites, variables: overrides, profile: ConformCommand.profile)
        let session = Session(
            console: ConsoleReporter(sink: io.out, color: io.color, masker: SecretMasker(secrets: credentials.values)),
            reports: reports, secrets: credentials.values,
            credentialHeaders: ConformCommand.profile.credentialHeaderNames)
        let host = parsed.value("--host") ?? "127.0.0.1"
        guard let tls = try ListenerTLS.resolve(parsed, host: host, subcommand: "mock", io: io) else {
            return ConformCommand.ExitCode.cannotRun
        }
        let server: Listeners
        do {
            server = try Listeners.start(host: host, port: port, limits: limits, tls: tls) { _ in handler }
            (faulty as? ClientFaultTransport)?.offline.attach(server.servers)
        } catch {
            io.report(Listeners.cannotListen(host: host, port: port, option: "--port", error))
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
        await Termination.wait(orUntil: {
            untilDone && mock.isDone || stopAt.map { .now >= $0 } ?? false
        })
        // The address the clients used, taken while the server still listens.
        let address = server.baseURL
        server.stop()
        let played = mock.report().matched.count
        io.out.write("\nPlayed \(played) exchange\(played == 1 ? "" : "s").\n")
        // The session's result decides the exit status, so a report and the exit status always agree.
        let result = mock.result(target: "client of \(address)", duration: ReportRequest.seconds(since: started))
        return io.status(of: await session.run(result))
    }
}
