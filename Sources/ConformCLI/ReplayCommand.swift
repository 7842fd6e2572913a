import ConformCore
import ConformCurl
import ConformRunner
import ConformTraffic
import Foundation
import Synchronization

/// `conform replay RECORDING`: re-send recorded requests, remap minted ids, diff each response against the recorded one.
enum ReplayCommand {
    static func main(_ args: [String], io: CommandIO) async throws(UsageError) -> Int32 {
        let parsed = try Arguments(
            args,
            valued: ["--target", "--noise", "--map", "--learn-noise", "--timeout", "--connections", "--max-body"],
            flagNames: ["--help", "--sequential", "--insecure", "--quiet"], subcommand: "replay")
        if parsed.has("--help") {
            io.out.write(Help.replay)
            return 0
        }
        guard parsed.positionals.count == 1, let recording = parsed.positionals.first else {
            throw UsageError(
                message: "replay takes one recording (a directory under recordings/ or a .jsonl or .har file)",
                subcommand: "replay")
        }
        let target = try Target(parsing: parsed.value("--target") ?? "builtin", faults: [], subcommand: "replay")
        let substitutions = try TrafficSupport.pairs(parsed.values("--map"), option: "--map", subcommand: "replay")
        guard let noise = TrafficSupport.noise(parsed, io: io) else { return ConformCommand.ExitCode.cannotRun }
        let timeout = try parsed.duration("--timeout") ?? .seconds(10)
        let maxBody = try parsed.maxBody()
        let options = TrafficSupport.replayOptions(
            target, substitutions: substitutions, sequential: parsed.has("--sequential"))
        let connections = try parsed.integer("--connections", in: 1...256) ?? 8
        do {
            if let output = parsed.value("--learn-noise") {
                let exchanges = try TrafficSupport.exchanges(recording, io: io)
                let learned = try await NoiseLearner.learn(
                    exchanges, first: try target.makeTransport(timeout: timeout),
                    second: try target.makeTransport(timeout: timeout),
                    noise: noise, options: options)
                try Data(learned.yamlText().utf8).write(to: URL(fileURLWithPath: io.resolve(output)), options: .atomic)
                io.out.write(
                    "Learned \(learned.evidence.count) noise rule\(learned.evidence.count == 1 ? "" : "s") from two replays; wrote \(output)\n"
                )
                io.out.write("help: review the rules, then replay with --noise \(output)\n")
                return 0
            }
            // A few connections beat one per exchange in flight: fewer threads to switch between (see docs/performance.md).
            let transport: any Transport =
                if case .http = target {
                    CurlTransport(
                        timeout: timeout, insecure: parsed.has("--insecure"), maxConcurrentExchanges: connections,
                        maxBodyBytes: maxBody)
                } else {
                    try target.makeTransport(
                        timeout: timeout, insecure: parsed.has("--insecure"), maxBodyBytes: maxBody)
                }
            let progress = Progress(io: io, enabled: io.interactive && !parsed.has("--quiet"))
            let replayer = Replayer(transport: transport, noise: noise, options: options)
            let onOutcome: @Sendable (ReplayOutcome) -> Void = { outcome in
                progress.tick()
                if !outcome.passed {
                    progress.clear()
                    io.out.write("\(outcome)\n")
                }
            }
            let summary: ReplaySummary
            if try TrafficSupport.isHAR(recording, io: io) {
                summary = try await replayer.replay(
                    try TrafficSupport.exchanges(recording, io: io), onOutcome: onOutcome)
            } else {
                summary = try await replayer.replay(recording: io.resolve(recording), onOutcome: onOutcome)
            }
            progress.clear()
            let unjudged = summary.unjudged > 0 ? ", \(summary.unjudged) could not be judged" : ""
            io.out.write(
                "Replayed \(summary.total) exchanges against \(target.description): \(summary.passed) matched, \(summary.mismatched) differed, \(summary.failed) got no response\(unjudged)\n"
            )
            if summary.mismatched == 0 && summary.failed == 0 && summary.unjudged > 0 {
                // Nothing differed, but the recording lacks what it takes to say the behaviour is the same.
                io.out.write("Result: CANNOT JUDGE\n")
                return ConformCommand.ExitCode.cannotRun
            }
            io.out.write(summary.allPassed ? "Result: SAME BEHAVIOUR\n" : "Result: DIFFERENT BEHAVIOUR\n")
            return summary.failed > 0 && summary.passed == 0
                ? ConformCommand.ExitCode.cannotRun : summary.allPassed ? 0 : ConformCommand.ExitCode.mismatch
        } catch {
            io.err.write("\(error)\n")
            return ConformCommand.ExitCode.cannotRun
        }
    }
}

/// A one-line counter on a terminal for long replays.
final class Progress: Sendable {
    private let io: CommandIO
    private let enabled: Bool
    private let count = Mutex(0)

    init(io: CommandIO, enabled: Bool) {
        self.io = io
        self.enabled = enabled
    }

    func tick() {
        let n = count.withLock { c -> Int in
            c += 1
            return c
        }
        if enabled, n % 500 == 0 { io.err.write("\r\(n) exchanges replayed") }
    }

    func clear() { if enabled { io.err.write("\r\u{1B}[K") } }
}
