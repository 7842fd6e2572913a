import ConformCore
import ConformCrypto
import ConformDiagnostics
import ConformReport
import Foundation

/// Suite files loaded together for one run: each parsed and versioned by its SHA-256, suite ids unique, and every
/// problem of every file as a ``Problem``: a diagnostic with the source line it points at, which the command line
/// (or `ConformTesting`'s summary) renders compiler-style.
public struct LoadedSuites: Sendable {
    /// One problem of a file that did not load: the diagnostic, and the line of the file it points at (`nil` when
    /// the file could not be read or the problem has no line).
    public struct Problem: Sendable, Hashable {
        public var diagnostic: Diagnostic
        public var sourceLine: String?

        /// The problem compiler-style: `file:line:col: error: …`, the source line with a caret, `help:`.
        public func renderedText(color: Bool = false) -> TerminalText {
            diagnostic.renderedText(sourceLine: sourceLine.map { Substring($0) }, color: color)
        }
    }

    /// The suites that loaded, in the order of the files.
    public var suites: [Suite]
    /// The problems of the files that did not load, file by file in file order; the run must not start unless
    /// there are none.
    public var problems: [Problem]
    /// How many problems there are.
    public var problemCount: Int { problems.count }

    /// Every problem rendered, one after another (colours only when asked for).
    public func renderedProblems(color: Bool = false) -> TerminalText {
        problems.reduce(into: TerminalText()) { text, problem in text += problem.renderedText(color: color) + "\n" }
    }

    /// Why nothing was run when the suites had problems: the one diagnostic that follows them, `nil` when there
    /// are none.
    public var notRun: Diagnostic? {
        problemCount > 0 ? Diagnostic(.suitesHaveProblems(problemCount)) : nil
    }

    /// Loads `files`: each has the name diagnostics and reports show, and its bytes (`nil` when unreadable); the
    /// bases of `profile` are names every suite may use without declaring them.
    public init(files: [(name: String, contents: Data?)], profile: ProtocolProfile) {
        let contents = Dictionary(files.map { ($0.name, $0.contents) }, uniquingKeysWith: { first, _ in first })
        self.init(names: files.map(\.name), profile: profile) { contents[$0] ?? nil }
    }

    /// Loads the files `names` like ``init(files:profile:)``, reading each with `read` (`nil` when unreadable) only
    /// when its turn comes, so a run over many large files holds one file's bytes at a time.
    public init(names: [String], profile: ProtocolProfile, read: (String) -> Data?) {
        let loader = SuiteLoader(profile: profile)
        suites = []
        problems = []
        var seen: [String: String] = [:]
        for file in names {
            // The file's bytes are held once: as the array the parser reads (the `Data` is gone once copied), which
            // is hashed as it is (hashing the `Data` would copy it into an array of its own first).
            guard let (bytes, hash) = read(file).map({ [UInt8]($0) }).map({ ($0, Self.contentHash(of: $0)) }) else {
                problems.append(
                    Problem(
                        diagnostic: Diagnostic(
                            .fileUnreadable, file: file, message: "cannot read the file",
                            help: "check that it exists and is readable")))
                continue
            }
            do {
                // Handed over, so that a large file's bytes are gone before its flows are put together.
                var suite = try loader.load(bytes: consume bytes, file: file)
                suite.contentHash = hash
                if let other = seen[suite.id] {
                    problems.append(
                        Problem(
                            diagnostic: Diagnostic(
                                .suiteDuplicateID, file: file, mark: SourceMark(line: 1, column: 1),
                                message: "suite id '\(suite.id)' is also used by \(other)",
                                help: "give every suite a unique 'suite:' id")))
                    continue
                }
                seen[suite.id] = file
                suites.append(suite)
            } catch {
                // Read again to quote the lines of a file that has problems.
                let source = read(file).map { String(decoding: $0, as: UTF8.self) } ?? ""
                for d in error.diagnostics {
                    problems.append(Problem(diagnostic: d, sourceLine: d.sourceLine(in: source).map(String.init)))
                }
            }
        }
    }

    /// The SHA-256 of a suite file, hex: the suite version reports show.
    public static func contentHash(of data: Data) -> String { Hex.encode(SHA256.hash(data)) }

    /// The SHA-256 of a suite file's bytes, hex, hashed where they are.
    static func contentHash(of bytes: [UInt8]) -> String { Hex.encode(SHA256.hash(bytes)) }

    /// The suite files (`*.yaml`, `*.yml`) under `directory`, recursively, skipping hidden entries: paths relative
    /// to `directory`, sorted, so file names give the run order.
    public static func suiteFiles(inDirectory directory: String) -> [String] {
        (FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? [])
            .filter {
                ($0.hasSuffix(".yaml") || $0.hasSuffix(".yml"))
                    && !$0.split(separator: "/").contains { $0.hasPrefix(".") }
            }
            .sorted()
    }
}

extension LoadedSuites {
    /// The suites a run plays: `selection` applied, then `shard` (every shard selects alike, so the shards of a
    /// selection still make one whole run), with their place in the whole plan; or why no suite is left.
    public func chosen(selection: RunSelection, shard: Shard?) -> Result<
        (suites: [Suite], placement: ShardPlacement), Diagnostic
    > {
        let selected = selection.apply(suites)
        guard !selected.isEmpty else {
            return .failure(
                Diagnostic(
                    .runNoSelection, message: "no suite or step matches the selection (--tag, --filter, --step)",
                    help: "list what is there with 'conform run --list', then pick from it"))
        }
        guard let shard else { return .success((selected, ShardPlacement.whole(suiteCount: selected.count))) }
        let (inShard, placement) = ShardPlacement.select(selected, shard: shard)
        return .success((inShard, placement))
    }
}
