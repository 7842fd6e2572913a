import Foundation

/// `junit-10.xsd`, the schema Jenkins' xUnit plugin reads JUnit with, and `xmllint` checking a document against it.
public enum JUnitSchema {
    /// Fetched by `scripts/setup` from pytest 8.3.4's source distribution on PyPI, pinned by hash.
    public static let file = TestPaths.root.appendingPathComponent(".build/fixtures/junit-10.xsd")

    /// Whether the schema is there (`scripts/setup` fetches it).
    public static var isPresent: Bool { FileManager.default.fileExists(atPath: file.path) }

    /// Runs `xmllint --noout --schema junit-10.xsd` on `document`; returns its exit code and output.
    public static func validate(_ document: String) async throws -> (code: Int32, output: String) {
        let scratch = try Scratch("junit")
        let report = scratch.url.appendingPathComponent("report.xml")
        try Data(document.utf8).write(to: report)
        let run = try await ChildProcess.output("/usr/bin/xmllint", ["--noout", "--schema", file.path, report.path])
        return (run.status, run.output)
    }
}
