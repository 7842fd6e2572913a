import ConformCore
import ConformDiagnostics
import ConformReport
import ConformRunner
import ConformYAML
import Foundation

/// What a run tells its reports about itself: its scope (selection, share of the bundled plan, shard), and the
/// product under test.
extension RunCommand {
    /// The scope of a run of `suites` (selected and sharded) out of the plan, against the kit's bundled suites.
    static func scope(_ parsed: Arguments, suites: [Suite], placement: ShardPlacement, io: CommandIO) -> RunScope {
        let selection = RunSelection(
            tags: parsed.values("--tag"), filters: parsed.values("--filter"), steps: parsed.values("--step"))
        return RunScope(
            running: suites, bundled: SuiteFiles.bundledSuiteHashes(), selection: selection.words,
            shard: placement.shard, failFast: parsed.has("--fail-fast"))
    }

    /// The product under test from `--product NAME --product-version V` or `--product-file FILE`; `nil` when
    /// neither is given. A product file's problems are reported at their `file:line:col` (then `.failure`).
    static func product(_ parsed: Arguments, io: CommandIO) throws(UsageError) -> Result<ProductIdentity?, CLIFailure> {
        let name = parsed.value("--product"), version = parsed.value("--product-version")
        if let file = parsed.value("--product-file") {
            guard name == nil, version == nil else {
                throw UsageError(
                    message: "--product-file names the product; leave out --product and --product-version",
                    subcommand: parsed.subcommand)
            }
            let path = io.resolve(file)
            guard let data = SmallFile.read(path, limit: ProductIdentity.maxFileBytes + 1) else {
                return .failure(
                    CLIFailure(
                        Diagnostic(
                            .fileUnreadable, file: file, message: "cannot read the product file",
                            help: "check that it exists and is readable")))
            }
            do {
                return .success(try ProductIdentity.load([UInt8](data), file: file))
            } catch {
                let source = String(decoding: data, as: UTF8.self)
                io.report(error.diagnostics, source: source)
                return .failure(
                    CLIFailure(
                        Diagnostic(
                            .cliFailed, message: "the product file \(file) has problems; nothing was run",
                            help: "fix the product file, or name the product with --product and --product-version")))
            }
        }
        switch (name, version) {
        case (nil, nil): return .success(nil)
        case (let name?, let version?):
            for (option, key, value) in [("--product", "name", name), ("--product-version", "version", version)] {
                if let problem = ProductIdentity.problem(key: key, value: value) {
                    throw UsageError(
                        message:
                            "\(option): \(problem.message.replacingOccurrences(of: "'\(key)'", with: "the value")); \(problem.help)",
                        subcommand: parsed.subcommand)
                }
            }
            return .success(ProductIdentity(name: name, version: version))
        default:
            throw UsageError(
                message: "--product and --product-version go together: name the product and its version",
                subcommand: parsed.subcommand)
        }
    }
}

/// Reads a small file whole, at most `limit` bytes (a larger one is read to `limit`, so its size shows).
enum SmallFile {
    static func read(_ path: String, limit: Int) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return try? handle.read(upToCount: limit) ?? Data()
    }
}
