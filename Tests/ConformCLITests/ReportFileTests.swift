import ConformCLI
import ConformCore
import ConformReport
import Foundation
import Testing

/// `--report` files take their place only when complete, and a later run replaces them.
@Suite struct ReportFileTests {
    static let root = SuitesBundle.root

    func run(_ reports: [String], in directory: URL) async -> (code: Int32, err: String) {
        let err = MemorySink()
        let io = CommandIO(
            out: MemorySink(), err: err, color: false, environment: [:], currentDirectory: directory.path)
        let suite = Self.root.appendingPathComponent("suites/01-registration.yaml").path
        let code = await ConformCommand.main(
            ["conform", "run", suite] + reports.flatMap { ["--report", $0] }, io: io)
        return (code, err.text)
    }

    @Test func aSecondRunReplacesEveryReport() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("conform-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let names = ["r.xml", "r.json", "r.html"]
        for name in names { try Data("earlier".utf8).write(to: directory.appendingPathComponent(name)) }
        let reports = ["junit:r.xml", "json:r.json", "html:r.html"]
        for round in 1...2 {
            let (code, err) = await run(reports, in: directory)
            #expect(code == 0, "round \(round): \(err)")
            #expect(err.isEmpty, "round \(round)")
            for name in names {
                let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                #expect(text != "earlier" && text.contains("registration"), "round \(round): \(name)")
            }
            _ = try JSONValue.parse(Data(contentsOf: directory.appendingPathComponent("r.json")))
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == names.sorted(), "no partial file is left behind")
    }

    @Test func aReportThatCannotBeWrittenSaysSoAndLeavesNothing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("conform-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (code, err) = await run(["json:missing/r.json"], in: directory)
        #expect(code == 2)
        #expect(err.contains("cannot write the json report to missing/r.json"))
        #expect(err.contains("help: check that the directory exists and is writable"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
