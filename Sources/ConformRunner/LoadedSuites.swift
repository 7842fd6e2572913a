import ConformCore
import ConformCrypto
import ConformDiagnostics
import Foundation

/// Suite files loaded together for one run: each parsed and versioned by its SHA-256, suite ids unique, and the
/// problems of every file rendered compiler-style (`file:line:col: error: …`, the source line, a `help:` line).
public struct LoadedSuites: Sendable {
    /// The suites that loaded, in the order of the files.
    public var suites: [Suite]
    /// The rendered diagnostics of the files that did not load, one problem after another, as terminal text (its
    /// colours, when asked for, kept apart from the text).
    public var problemText: TerminalText
    /// ``problemText`` as it is written.
    public var problems: String { problemText.rendered }
    /// How many problems `problems` holds; the run must not start unless it is zero.
    public var problemCount: Int

    /// Loads `files`: each has the name diagnostics and reports show, and its bytes (`nil` when unreadable); the
    /// bases of `profile` are names every suite may use without declaring them.
    public init(files: [(name: String, contents: Data?)], profile: ProtocolProfile, color: Bool = false) {
        let contents = Dictionary(files.map { ($0.name, $0.contents) }, uniquingKeysWith: { first, _ in first })
        self.init(names: files.map(\.name), profile: profile, color: color) { contents[$0] ?? nil }
    }

    /// Loads the files `names` like ``init(files:profile:color:)``, reading each with `read` (`nil` when
    /// unreadable) only when its turn comes, so a run over many large files holds one file's bytes at a time.
    public init(names: [String], profile: ProtocolProfile, color: Bool = false, read: (String) -> Data?) {
        let loader = SuiteLoader(profile: profile)
        suites = []
        problemText = TerminalText()
        problemCount = 0
        var seen: [String: String] = [:]
        for file in names {
            // The file's bytes are held once: as the array the parser reads (the `Data` is gone once copied).
            guard let (bytes, hash) = read(file).map({ ([UInt8]($0), Self.contentHash(of: $0)) }) else {
                let problem = Diagnostic(
                    .fileUnreadable, file: file, message: "cannot read the file",
                    help: "check that it exists and is readable")
                problemText += problem.renderedText(sourceLine: nil, color: color) + "\n"
                problemCount += 1
                continue
            }
            do {
                // Handed over, so that a large file's bytes are gone before its flows are put together.
                var suite = try loader.load(bytes: consume bytes, file: file)
                suite.contentHash = hash
                if let other = seen[suite.id] {
                    let problem = Diagnostic(
                        .suiteDuplicateID, file: file, mark: SourceMark(line: 1, column: 1),
                        message: "suite id '\(suite.id)' is also used by \(other)",
                        help: "give every suite a unique 'suite:' id")
                    problemText += problem.renderedText(sourceLine: nil, color: color) + "\n"
                    problemCount += 1
                    continue
                }
                seen[suite.id] = file
                suites.append(suite)
            } catch {
                // Read again to quote the lines of a file that has problems.
                let source = read(file).map { String(decoding: $0, as: UTF8.self) } ?? ""
                for d in error.diagnostics { problemText += d.renderedText(source: source, color: color) + "\n" }
                problemCount += error.diagnostics.count
            }
        }
    }

    /// The SHA-256 of a suite file, hex: the suite version reports show.
    public static func contentHash(of data: Data) -> String { Hex.encode(SHA256.hash(data)) }

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
