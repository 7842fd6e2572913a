import ConformBundles
import ConformCrypto
import ConformReport

/// `conform merge --bundle OUT SHARD_BUNDLE…`: the bundles of every shard of one run joined into one bundle
/// (``BundleMerge``, docs/certification.md).
enum MergeBundle {
    static func main(_ parsed: Arguments, out: String, io: CommandIO) async throws(UsageError) -> Int32 {
        let requests = try MergeCommand.reportTargets(
            parsed, io: io,
            orUsage:
                "merge --bundle takes the bundle of every shard (written by 'conform run --shard K/N --bundle DIR')")
        guard let signingKey = io.reported(try BundleKeyOption.sign(parsed, io: io)) else {
            return ConformCommand.ExitCode.cannotRun
        }
        let merge = BundleMerge(
            directory: io.resolve(out), out: out, kit: .cli, signingKey: signingKey,
            console: MergeCommand.console(parsed, io: io),
            reports: requests, output: io.bundleConsole, resolve: { [io] in io.resolve($0) })
        do {
            return try await merge.run(parsed.positionals).rawValue
        } catch {
            throw UsageError(message: error.message, subcommand: "verify")
        }
    }
}
