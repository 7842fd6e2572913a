import ConformDiagnostics
import ConformRunner
import Foundation

/// `conform validate SUITES…`: every problem in every file, or how many suites and steps are valid and exit 0.
enum ValidateCommand {
    static func main(_ parsed: Arguments, io: CommandIO) throws(UsageError) -> Int32 {
        let color = io.color && !parsed.has("--no-color")
        let allowed = try SuiteFiles.allowedHosts(parsed, subcommand: "validate")
        do {
            let files = try SuiteFiles.given(parsed.positionals, io: io)
            let loaded = SuiteFiles.load(files, io: io)
            let outside = SuiteFiles.outsideTarget(loaded.suites, allowed: allowed)
            for problem in outside {
                let source = problem.file.flatMap { FileManager.default.contents(atPath: io.resolve($0)) }
                io.report(problem, source: source.map { String(decoding: $0, as: UTF8.self) })
            }
            let count = loaded.problemCount + outside.count
            if count > 0 {
                io.err.write(loaded.renderedProblems(color: color))
                io.err.write(
                    "\(count) problem\(count == 1 ? "" : "s") in \(files.count) file\(files.count == 1 ? "" : "s")\n"
                )
                return ConformCommand.ExitCode.cannotRun
            }
            let steps = loaded.suites.reduce(0) { $0 + $1.stepCount }
            io.out.write(
                "\(loaded.suites.count) suite\(loaded.suites.count == 1 ? "" : "s"), \(steps) step\(steps == 1 ? "" : "s"): "
                    + "valid\n")
            return 0
        } catch {
            io.err.write(error.diagnostic.renderedText(sourceLine: nil, color: color) + "\n")
            return ConformCommand.ExitCode.cannotRun
        }
    }
}
