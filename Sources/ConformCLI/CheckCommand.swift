import ConformTraffic
import Foundation
import Synchronization

/// `conform check RECORDING_OR_HAR…`: the client side of an integration against the flow's rules.
enum CheckCommand {
    static func main(_ args: [String], io: CommandIO) async throws(UsageError) -> Int32 {
        let parsed = try Arguments(
            args, valued: ["--restricted", "--jwt", "--disable"], flagNames: ["--help"], subcommand: "check")
        if parsed.has("--help") {
            io.out.write(Help.check)
            return 0
        }
        guard !parsed.positionals.isEmpty else {
            throw UsageError(message: "missing a recording or HAR file to check", subcommand: "check")
        }
        var configuration = FlowCheckConfiguration()
        if !parsed.values("--restricted").isEmpty {
            configuration.restrictedApplicationCodes = Set(parsed.values("--restricted"))
        }
        if !parsed.values("--jwt").isEmpty { configuration.jwtApplicationCodes = Set(parsed.values("--jwt")) }
        configuration.disabledRules = Set(parsed.values("--disable"))
        var total = 0
        var unjudged = 0
        for path in parsed.positionals {
            do {
                let violations: [FlowViolation]
                let incomplete = Mutex<[RecordedExchange]>([])
                if try TrafficSupport.isHAR(path, io: io) {
                    let exchanges = try TrafficSupport.exchanges(path, io: io)
                    incomplete.withLock { $0 = exchanges.filter { !$0.omitted.isEmpty } }
                    violations = FlowChecker.check(exchanges, configuration: configuration)
                } else {
                    let sequence = RecordingSequence(path: io.resolve(path)) { io.err.write($0.warning + "\n") }
                    violations = try await FlowChecker.check(recording: sequence, configuration: configuration)
                    for try await e in RecordingSequence(path: io.resolve(path)) where !e.omitted.isEmpty {
                        incomplete.withLock { $0.append(e) }
                    }
                }
                // A rule broken only where the trace lacks a body or a response is not a finding: name what is missing.
                let missing = incomplete.withLock { $0 }
                for e in missing {
                    io.out.write(
                        "\(path): exchange \(e.seq) \(e.request.method) \(e.request.target): cannot judge: "
                            + e.omitted.joined(separator: "; ") + "\n")
                }
                unjudged += missing.count
                for v in violations { io.out.write("\(path): \(v)\n") }
                total += violations.count
            } catch {
                io.err.write("\(error)\n")
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
