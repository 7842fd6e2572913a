import ConformCore
import ConformCurl
import ConformDiagnostics
import ConformReplay
import ConformReport
import ConformRunner
import Foundation
import Synchronization

/// `conform replay RECORDING`: re-send recorded requests, remap minted ids, diff each response against the recorded one.
enum ReplayCommand {
    static func main(_ parsed: Arguments, io: CommandIO) async throws(UsageError) -> Int32 {
        let recording = try parsed.onePositional(
            "one recording (a directory under recordings/ or a .jsonl or .har file)")
        let target = try Target(parsing: parsed.value("--target") ?? "builtin", faults: [], subcommand: "replay")
        guard let given = TrafficSupport.noise(parsed, io: io) else { return ConformCommand.ExitCode.cannotRun }
        // A correct implementation differs from its own recording on what the protocol documents as volatile (the
        // send time of a push): ignored unless asked, as diff does.
        let noise = TrafficSupport.withDocumentedNoise(given, parsed)
        let timeout = try parsed.duration("--timeout") ?? .seconds(10)
        let maxBody = try parsed.maxBody()
        var options = try replayOptions(parsed, target: target, timeout: timeout)
        let shard = try parsed.value("--shard").map { (text: String) throws(UsageError) in
            try ShardOption.parse(text, subcommand: "replay")
        }
        let connections = try parsed.integer("--connections") ?? 8
        let retry = try parsed.retryPolicy()
        let session = Session(
            console: HARCommands.console(io: io), reports: try ReportRequest.all(parsed, subcommand: "replay", io: io),
            credentialHeaders: ConformCommand.profile.credentialHeaderNames)
        let tls = try ClientTLSOptions.parse(parsed, subcommand: "replay", io: io)
        guard let credentials = try credentials(recording, parsed: parsed, io: io) else {
            return ConformCommand.ExitCode.cannotRun
        }
        options.upstreamOrigins = credentials.origins
        options.signsRedactedTokens = credentials.given.signer != nil
        let hints = CredentialHints(
            recorded: credentials.recorded, redacted: credentials.redacted, live: credentials.given.live,
            profile: ConformCommand.profile)
        do {
            if let output = parsed.value("--learn-noise") {
                return try await learnNoise(
                    recording, into: output, target: target, timeout: timeout, tls: tls, noise: noise,
                    options: options, credentials: credentials.given, io: io)
            }
            // A few connections beat one per exchange in flight: fewer threads to switch between (see docs/performance.md).
            let direct = try target.makeTransport(
                timeout: timeout, insecure: parsed.has("--insecure"), maxBodyBytes: maxBody, tls: tls,
                maxConcurrentExchanges: connections)
            let transport = credentials.given.transport(over: direct.retrying(retry))
            // Any trace is read record by record.
            let trace = credentials.trace
            if let shard {
                // A first pass over the trace groups the device flows that share a person (its warnings come with the
                // replay's pass).
                options.partition = try await ReplayPartition.build(
                    trace.exchanges(), shard: shard, sharedFlow: options.sharedFlow)
            }
            let progress = ProgressLine(
                sink: io.err, counting: "exchanges replayed", enabled: io.interactive && !parsed.has("--quiet"))
            let replayer = Replayer(transport: transport, noise: noise, options: options)
            // Only a requested report keeps a step per exchange that passed; the console counts them.
            let started = ContinuousClock.now
            let outcome = try await session.run { events in
                // Without a report the console shows each step as it comes: the result keeps the first thousand
                // that did not pass and counts the rest, so memory does not grow with the recording.
                let collector = ResultCollector(
                    keepsPasses: session.writesReports, maxKeptSteps: session.writesReports ? .max : 1000,
                    events: events)
                // A passed exchange nothing shows is counted, its step never made.
                let countsPasses = !collector.keepsPasses && !session.showsPassedSteps
                let onOutcome: @Sendable (ReplayOutcome) -> Void = { replayed in
                    let outcome = hints.annotate(replayed)
                    progress.tick()
                    if !outcome.passed { progress.clear() }
                    if countsPasses && outcome.passed {
                        collector.countPass(
                            retries: outcome.retries, toGroupWithID: ReplayResults.groupID(flow: outcome.flow)
                        ) {
                            ReplayResults.group(flow: outcome.flow, trace: recording, title: "Replay of \(recording)")
                        }
                        return
                    }
                    let step = ReplayResults.step(outcome, trace: recording)
                    // The step names its device flow's group; the group is made once, with the flow's first step.
                    collector.add(step, toGroupWithID: step.suiteID) {
                        ReplayResults.group(flow: outcome.flow, trace: recording, title: "Replay of \(recording)")
                    }
                }
                let summary = try await replayer.replay(
                    trace,
                    onWarning: { warning in
                        progress.clear()
                        io.err.write(warning.text + "\n")
                    }, onOutcome: onOutcome)
                progress.clear()
                io.out.write(
                    summary.text(counts: collector.counts, target: target.description, options: options))
                if let hint = hints.summary { io.out.write("help: \(hint)\n") }
                // What the unreadable records held was not replayed: the behaviour cannot be called the same.
                ReplayResults.addUnreadable(summary.unreadable, trace: recording) { collector.add($0, to: $1) }
                return collector.result(
                    .replay, target: target.description, duration: ReportRequest.seconds(since: started),
                    sortedByLine: true)
            }
            return io.status(of: outcome)
        } catch {
            io.report(failure: error)
            return ConformCommand.ExitCode.cannotRun
        }
    }
}

extension ReplayCommand {
    /// How the replay reaches its target: `--map`, `--sequential`, `--speed`/`--rate`, `--host-header`.
    static func replayOptions(
        _ parsed: Arguments, target: Target, timeout: Duration
    ) throws(UsageError) -> ReplayOptions {
        var options = TrafficSupport.replayOptions(
            target, substitutions: try parsed.substitutions(), sequential: parsed.has("--sequential"), timeout: timeout)
        options.pace = try PaceOption.parse(
            speed: parsed.value("--speed"), rate: parsed.value("--rate"), subcommand: "replay")
        if let host = parsed.value("--host-header") {
            // A field value goes on the wire as it is: no line break, control byte or space may smuggle another.
            guard !host.isEmpty, host.utf8.count <= 255, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw UsageError(
                    message: "--host-header takes a host name or HOST:PORT, got \(HTTPSyntax.quoted(host))",
                    subcommand: "replay")
            }
            options.hostHeader = host
        }
        options.freshIdentities = try freshIdentities(parsed)
        return options
    }

    /// `--learn-noise FILE`: two replays of the recording, and the rules that tell their differences apart.
    static func learnNoise(
        _ recording: String, into output: String, target: Target, timeout: Duration, tls: ClientTLS,
        noise: NoiseRules, options: ReplayOptions, credentials: ReplayCredentials, io: CommandIO
    ) async throws -> Int32 {
        // Each replay's transport, as the replay's own: redacted tokens re-signed, live credentials swapped in.
        func transport() throws -> any Transport {
            credentials.transport(over: try target.makeTransport(timeout: timeout, tls: tls))
        }
        // Two replays of the same exchanges: the (small) trace a noise file is learned from is held.
        let exchanges = try await TrafficSupport.trace(recording, io: io)
            .exchanges(onWarning: TrafficSupport.warnings(io)).all()
        let learned = try await NoiseLearner.learn(
            exchanges,
            first: try transport(), second: try transport(),
            noise: noise, options: options)
        try Data(learned.yamlText().utf8).write(to: URL(fileURLWithPath: io.resolve(output)), options: .atomic)
        let count = learned.evidence.count
        io.out.write("Learned \(count) noise rule\(count == 1 ? "" : "s") from two replays; wrote \(output)\n")
        io.out.write("help: review the rules, then replay with --noise \(output)\n")
        return 0
    }
}
