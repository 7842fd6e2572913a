import ConformFuzzTargets
import Foundation
import Testing

/// Every committed fuzzing input (fuzz/Corpus) still runs through its target without a trap: the regression half
/// of `scripts/fuzz`, in the ordinary test run.
@Suite struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fuzz/Corpus")

    @Test(arguments: FuzzTargets.all.keys.sorted())
    func corpusRunsClean(_ target: String) throws {
        let directory = Self.corpus.appendingPathComponent(target)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }
        #expect(!names.isEmpty, "fuzz/Corpus/\(target) has no seeds")
        let run = try #require(FuzzTargets.all[target])
        for name in names.sorted() {
            run(try Data(contentsOf: directory.appendingPathComponent(name)))
        }
    }
}
