import ConformCore
import ConformDiagnostics
import ConformReport
import Testing

/// A step result stores what its flow's steps share once; how it is stored does not change what it is.
@Suite struct StepResultStorageTests {
    static let suiteSpec = SpecReference(section: "flow step 2", decisions: ["D2"])
    static let stepSpec = SpecReference(section: "API M4")

    @Test func resultsWithTheSamePartsAreEqualHoweverTheirOriginWasMade() {
        let shared = StepResult.Origin(suiteID: "login", flow: "device", file: "s.yaml", spec: Self.suiteSpec)
        let mark = SourceMark(line: 3, column: 5)
        let fromOrigin = StepResult(
            origin: shared, index: 1, name: "personalize", mark: mark, spec: Self.stepSpec, verdict: .pass)
        let fromParts = StepResult(
            suiteID: "login", flow: "device", index: 1, name: "personalize", file: "s.yaml", mark: mark,
            spec: Self.stepSpec, verdict: .pass)
        #expect(fromOrigin.spec == Self.stepSpec)
        #expect(fromOrigin == fromParts)
        #expect(fromOrigin.hashValue == fromParts.hashValue)
        var renamed = fromOrigin
        renamed.suiteID = "other"
        #expect(renamed != fromOrigin)
        #expect(renamed.flow == "device" && renamed.spec == Self.stepSpec)
        #expect(fromOrigin.suiteID == "login", "renaming one result leaves the shared origin alone")
    }

    @Test func countsOutsideThirtyTwoBitsAreClampedNotTrapped() {
        var result = StepResult(
            suiteID: "s", flow: "f", index: 0, name: "n", file: "f.yaml", mark: SourceMark(line: 1, column: 1),
            spec: SpecReference(), verdict: .pass)
        result.attempts = Int.max
        result.index = Int.min
        #expect(result.attempts == Int(Int32.max))
        #expect(result.index == Int(Int32.min))
        #expect(result.spec == SpecReference())
    }
}
