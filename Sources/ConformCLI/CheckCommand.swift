import ConformTraffic
import Foundation

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
        for path in parsed.positionals {
            do {
                let violations: [FlowViolation]
                if path.lowercased().hasSuffix(".har") {
                    violations = FlowChecker.check(
                        try TrafficSupport.exchanges(path, io: io), configuration: configuration)
                } else {
                    violations = try await FlowChecker.check(
                        recording: RecordingSequence(path: io.resolve(path)), configuration: configuration)
                }
                for v in violations { io.out.write("\(path): \(v)\n") }
                total += violations.count
            } catch {
                io.err.write("\(error)\n")
                return ConformCommand.ExitCode.cannotRun
            }
        }
        io.out.write(
            total == 0
                ? "The traffic follows the flow: no violations\n"
                : "\(total) violation\(total == 1 ? "" : "s") of the flow\n")
        return total == 0 ? 0 : ConformCommand.ExitCode.mismatch
    }
}
