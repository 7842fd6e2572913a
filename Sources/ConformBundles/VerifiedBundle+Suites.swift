import ConformCore
import ConformDiagnostics
import ConformReport
import ConformRunner
import ConformTraffic
import Foundation

/// A suite of a bundle that has the file name or the id of one of the kit's bundled suites but not its text: the
/// bundled suite modified (a status check loosened, a step taken out), shown as a diff from the kit's.
public struct ModifiedSuite: Sendable, Hashable {
    /// The suite's file inside the bundle (`suites/004-02-login.yaml`).
    public var file: String
    public var id: String
    /// The kit's bundled suite it was made from, by its file name.
    public var kitFile: String
    /// From the kit's text to the bundle's; `nil` past the first ``maxDiffed`` modified suites.
    public var diff: LineDiff?

    /// The most lines of a suite's diff `verify` shows.
    public static let maxShownLines = 40
    /// The most modified suites of one bundle that are diffed (and shown with their diffs).
    public static let maxDiffed = 50

    /// `modified: FILE (suite ID) differs from this kit's bundled suite KIT (N lines differ):` and the diff.
    public var rendered: String {
        let head = "Suites: modified: \(file) (suite \(id)) differs from this kit's bundled suite \(kitFile)"
        guard let diff else {
            return head + " (not diffed: only the first \(Self.maxDiffed) modified suites are)\n"
        }
        return head + " (\(Noun("line").counted(diff.changed)) differ):\n"
            + diff.rendered(maxLines: Self.maxShownLines, indent: "  ")
    }
}

extension VerifiedBundle {
    /// The bundle's suites that are a bundled suite of this kit modified: not byte for byte one of the kit's
    /// (``BundleKit/bundledDirectory``), but with the file name (without the bundle's `NNN-` prefix) or the id of one.
    public func modifiedSuites() -> [ModifiedSuite] {
        guard let kitDirectory = kit.bundledDirectory else { return [] }
        let kitNames = LoadedSuites.suiteFiles(inDirectory: kitDirectory)
        var kitTexts: [String: Data] = [:]
        for name in kitNames {
            kitTexts[name] = FileManager.default.contents(
                atPath: (kitDirectory as NSString).appendingPathComponent(name))
        }
        let kitHashes = Set(kitTexts.values.map { LoadedSuites.contentHash(of: $0) })
        let others = suiteFiles.filter { !kitHashes.contains(LoadedSuites.contentHash(of: $0.contents)) }
        guard !others.isEmpty else { return [] }
        // The kit's suites by id, loaded only when a suite differs.
        let kitSuites = LoadedSuites(
            files: kitNames.map { (name: $0, contents: kitTexts[$0]) }, profile: kit.profile
        ).suites
        var out: [ModifiedSuite] = []
        for other in others {
            let id = suites.first { $0.file == other.shown }?.id
            let base = Self.bundledName(other.name)
            let kitFile =
                kitNames.first { ($0 as NSString).lastPathComponent == base }
                ?? id.flatMap { id in kitSuites.first { $0.id == id }?.file }
            guard let kitFile, let kitText = kitTexts[kitFile] else { continue }
            // A hostile bundle may hold thousands of copies of a bundled suite: only the first ones are diffed.
            let diff =
                out.count < ModifiedSuite.maxDiffed
                ? LineDiff(
                    old: String(decoding: kitText, as: UTF8.self), new: String(decoding: other.contents, as: UTF8.self))
                : nil
            out.append(
                ModifiedSuite(
                    file: other.name, id: id ?? kitSuites.first { $0.file == kitFile }?.id ?? "?", kitFile: kitFile,
                    diff: diff))
        }
        return out
    }

    /// A suite's file name as the run had it: the bundle's `suites/NNN-` taken off.
    public static func bundledName(_ name: String) -> String {
        let last = (name as NSString).lastPathComponent
        let digits = last.prefix { $0.isASCII && $0.isNumber }
        guard digits.count == 3, last.dropFirst(3).hasPrefix("-") else { return last }
        return String(last.dropFirst(4))
    }

    /// Refuses a suite file that is not the one the run judged with: its SHA-256 differs from the one the
    /// report's provenance gives for its place in the plan (the suite was changed after the run and the manifest
    /// written again).
    public func checkSuitesAgainstProvenance() throws(BundleProblem) {
        guard let files = report.result.provenance?.suiteFiles, files.count == suiteFiles.count else { return }
        for (written, bundled) in zip(files, suiteFiles) {
            let hash = LoadedSuites.contentHash(of: bundled.contents)
            guard hash == written.sha256 else {
                throw BundleProblem(
                    file: bundled.name,
                    "is not the suite the run judged with: its SHA-256 is \(hash), the report's provenance gives \(written.sha256) for \(written.file)",
                    help:
                        "the suite was changed after the run and the manifest written again; ask for the bundle as it was written"
                )
            }
        }
    }
}
