import ConformBundles
import ConformCrypto
import ConformReport

/// `conform verify DIR`: a certification bundle checked against its manifest, then its plan judged again from its
/// exchange log with its own suites, and the verdict of every step compared with the bundle's report
/// (``BundleVerifier``).
enum VerifyCommand {
    static func main(_ parsed: Arguments, io: CommandIO) async throws(UsageError) -> Int32 {
        let path = try parsed.onePositional("one bundle directory (written by 'conform run --bundle DIR')")
        let requests = try ReportRequest.all(parsed, subcommand: "verify", io: io)
        let color = io.color && !parsed.has("--no-color")
        guard let key = io.reported(BundleKeyOption.verify(parsed, io: io)) else {
            return ConformCommand.ExitCode.cannotRun
        }
        let verifier = BundleVerifier(
            directory: io.resolve(path), shown: path, kit: .cli, key: key, keyFile: parsed.value("--key") ?? "",
            allowPartial: parsed.has("--allow-partial"),
            console: ConsoleReporter(sink: io.out, color: color, verbose: parsed.has("--verbose")),
            reports: requests, output: io.bundleConsole)
        do {
            return try await verifier.run().rawValue
        } catch {
            throw UsageError(message: error.message, subcommand: "verify")
        }
    }
}
