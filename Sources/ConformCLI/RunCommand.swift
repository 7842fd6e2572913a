import ConformCore
import ConformRunner
import Foundation

/// `conform run`: load suites, pick the target, run, report, exit 0/1/2.
enum RunCommand {
    static func main(_ args: [String], io: CommandIO) async throws(UsageError) -> Int32 {
        let parsed = try Arguments(
            args, valued: ["--target", "--var", "--report", "--timeout", "--fault", "--variant", "--max-body"],
            flagNames: ["--help", "--verbose", "--no-color", "--insecure"], subcommand: "run"
        )
        if parsed.has("--help") {
            io.out.write(Help.run)
            return 0
        }
        var overrides: [String: String] = [:]
        for item in parsed.values("--var") {
            guard let eq = item.firstIndex(of: "="), eq != item.startIndex else {
                throw UsageError(message: "--var takes NAME=VALUE, got '\(item)'", subcommand: "run")
            }
            overrides[String(item[..<eq])] = String(item[item.index(after: eq)...])
        }
        let timeout = try parsed.duration("--timeout") ?? .seconds(10)
        let maxBody = try parsed.maxBody()
        let reports = try parsed.values("--report").map { (spec: String) throws(UsageError) -> ReportRequest in
            try ReportRequest(parsing: spec)
        }
        let target = try Target(
            parsing: parsed.value("--target") ?? "builtin", faults: parsed.values("--fault"),
            variants: parsed.values("--variant"))
        let color = io.color && !parsed.has("--no-color")

        let files: [String]
        do {
            files = try SuiteFiles.expand(parsed.positionals.isEmpty ? ["suites"] : parsed.positionals, io: io)
        } catch {
            io.err.write(error.message + "\n")
            return ConformCommand.ExitCode.cannotRun
        }
        let loaded = SuiteFiles.load(files, io: io, color: color)
        if loaded.count > 0 {
            io.err.write(loaded.problems)
            io.err.write(
                "error: \(loaded.count) problem\(loaded.count == 1 ? "" : "s") in the suites; nothing was run\nhelp: run 'conform validate' on them and fix each problem\n"
            )
            return ConformCommand.ExitCode.cannotRun
        }
        if loaded.suites.isEmpty {
            io.err.write(
                "error: no suites found in \(parsed.positionals.isEmpty ? "suites" : parsed.positionals.joined(separator: " "))\nhelp: pass suite files (*.yaml) or directories holding them\n"
            )
            return ConformCommand.ExitCode.cannotRun
        }
        let transport: any Transport
        do {
            transport = try target.makeTransport(
                timeout: timeout, insecure: parsed.has("--insecure"), maxBodyBytes: maxBody)
        } catch {
            io.err.write("error: cannot set up the target \(target.description): \(error)\n")
            return ConformCommand.ExitCode.cannotRun
        }
        let plan = RunPlan(
            suites: loaded.suites, overrides: overrides,
            environment: RunPlan.variables(fromEnvironment: io.environment),
            targetDefaults: target.variableDefaults, exchangeTimeout: timeout, targetDescription: target.description,
            functions: RunnerFunctions.all
        )
        var reporters: [any RunReporter] = [
            ConsoleReporter(sink: io.out, color: color, verbose: parsed.has("--verbose"))
        ]
        let fileSinks = reports.map { ($0, MemorySink()) }
        for (request, sink) in fileSinks { reporters.append(request.reporter(sink: sink)) }
        let fanout = ReporterFanout(reporters)
        let result = await Runner(transport: transport).run(plan) { fanout.handle($0) }
        for (request, sink) in fileSinks {
            do {
                try Data(sink.text.utf8).write(to: URL(fileURLWithPath: io.resolve(request.path)), options: .atomic)
            } catch {
                io.err.write(
                    "error: cannot write the \(request.kind) report to \(request.path): \(error.localizedDescription)\nhelp: check that the directory exists and is writable\n"
                )
                return ConformCommand.ExitCode.cannotRun
            }
        }
        return result.exitCode
    }
}

/// A `--report KIND:FILE` request.
struct ReportRequest {
    var kind: String
    var path: String

    static let kinds = ["junit", "json", "html"]

    init(parsing spec: String) throws(UsageError) {
        guard let colon = spec.firstIndex(of: ":"), colon != spec.startIndex, spec.index(after: colon) != spec.endIndex
        else {
            throw UsageError(
                message: "--report takes KIND:FILE (\(Self.kinds.joined(separator: ", "))), got '\(spec)'",
                subcommand: "run")
        }
        kind = String(spec[..<colon])
        path = String(spec[spec.index(after: colon)...])
        guard Self.kinds.contains(kind) else {
            throw UsageError(
                message: "unknown report kind '\(kind)'; use one of: \(Self.kinds.joined(separator: ", "))",
                subcommand: "run")
        }
    }

    func reporter(sink: any TextSink) -> any RunReporter {
        switch kind {
        case "junit": JUnitReporter(sink: sink)
        case "html": HTMLReporter(sink: sink)
        default: JSONReporter(sink: sink)
        }
    }
}
