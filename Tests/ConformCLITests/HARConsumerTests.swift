import ConformCLI
import ConformTestSupport
import Foundation
import Testing

/// `conform export` writes HAR 1.2 that others read: valid against the format's JSON schema (written out from the
/// HAR 1.2 specification in `HARConsumers/har-1.2.schema.json`), read back by haralyzer (PyPI), and served back to
/// Chromium by Playwright's `routeFromHAR`. The Python tools come from `scripts/setup` (Chromium with
/// `CONFORM_WITH_BROWSER=1`).
@Suite struct HARConsumerTests {
    static let consumers = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("HARConsumers")
    static let sample = TrafficCommandTests.sample

    static func python(has module: String) -> Bool {
        guard let python = Tool.path("python3") else { return false }
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import \(module)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard let exit = try? ProcessExit(starting: process) else { return false }
        return exit.wait() && process.terminationStatus == 0
    }

    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The sample recording exported by `conform export`, and the exchanges' recorded (method, URL, status).
    func exported(_ scratch: Scratch) async throws -> (har: String, entries: [(String, String, Int)]) {
        let har = scratch.path("sample.har")
        let run = await conformInProcess(["export", Self.sample, "--out", har])
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out.hasPrefix("Wrote \(har): HAR 1.2, 16 entries, "), "\(run.out)")
        let lines = try String(contentsOfFile: TestPaths.root.path + "/\(Self.sample)/exchanges.jsonl", encoding: .utf8)
        let entries = try lines.split(separator: "\n").map { line in
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let request = try #require(record["request"] as? [String: Any])
            let response = try #require(record["response"] as? [String: Any])
            return (
                try #require(request["method"] as? String), try #require(request["url"] as? String),
                try #require(response["status"] as? Int)
            )
        }
        #expect(entries.count == 16)
        return (har, entries)
    }

    func read(_ arguments: [String]) async throws -> ChildProcess.Outcome {
        try await ChildProcess.output(
            try #require(Tool.path("python3")),
            [Self.consumers.appendingPathComponent("read_har.py").path] + arguments, separateStandardError: true)
    }

    /// Each printed line as a JSON object.
    func objects(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test(.enabled(if: python(has: "jsonschema"), "needs python3 with jsonschema (scripts/setup)"))
    func theExportIsValidHAR12() async throws {
        let scratch = try Scratch()
        let (har, _) = try await exported(scratch)
        let schema = Self.consumers.appendingPathComponent("har-1.2.schema.json").path
        let valid = try await read(["schema", har, schema])
        #expect(valid.status == 0 && valid.output == "valid 16\n", "\(valid.output)\(valid.errorOutput)")
        let text = try String(contentsOfFile: har, encoding: .utf8)
        #expect(
            text.contains(#""creator": {"name":"conform","version":"\#(ConformCommand.version)"}"#), "the kit's version"
        )

        // The schema refuses what HAR 1.2 does not allow: an origin-form URL, a creator without a version.
        let broken = scratch.path("broken.har")
        let originForm = text.replacingOccurrences(
            of: #""url":"http://mobile.conform.invalid/mobile/1/appinstance?ri=true""#,
            with: #""url":"/mobile/1/appinstance?ri=true""#)
        #expect(originForm != text)
        try Data(originForm.utf8).write(to: URL(fileURLWithPath: broken))
        let refused = try await read(["schema", broken, schema])
        #expect(refused.status == 1)
        #expect(refused.output.contains("log/entries/0/request/url: '/mobile/1/appinstance?ri=true' does not match"))
    }

    @Test(.enabled(if: python(has: "haralyzer"), "needs python3 with haralyzer (scripts/setup)"))
    func haralyzerReadsEveryEntryBack() async throws {
        let scratch = try Scratch()
        let (har, recorded) = try await exported(scratch)
        let read = try await read(["haralyzer", har])
        #expect(read.status == 0, "\(read.errorOutput)")
        let entries = try objects(read.output)
        #expect(entries.count == recorded.count)
        for (entry, (method, url, status)) in zip(entries, recorded) {
            #expect(entry["method"] as? String == method)
            #expect(entry["url"] as? String == url)
            #expect(entry["status"] as? Int == status)
        }
        #expect(entries.first?["start"] as? String == "2026-11-29T12:42:27.812000+00:00")
        #expect(entries.first?["mimeType"] as? String == "application/json")
    }

    @Test(
        .enabled(
            if: python(has: "playwright.sync_api") && chromium != nil, "needs Playwright and Chromium (scripts/setup)")
    )
    func playwrightServesEveryAnswerFromTheExport() async throws {
        let scratch = try Scratch()
        let (har, recorded) = try await exported(scratch)
        let read = try await read(["playwright", har, try #require(Self.chromium)])
        #expect(read.status == 0, "\(read.output)\(read.errorOutput)")
        let answers = try objects(read.output)
        #expect(answers.count == recorded.count, "\(read.output)\(read.errorOutput)")
        let lines = try String(contentsOfFile: TestPaths.root.path + "/\(Self.sample)/exchanges.jsonl", encoding: .utf8)
            .split(separator: "\n")
        for ((answer, (method, url, status)), line) in zip(zip(answers, recorded), lines) {
            #expect(answer["method"] as? String == method && answer["url"] as? String == url)
            #expect(answer["status"] as? Int == status, "\(url)")
            // The body the browser got is the recorded one: a POST matched on its recorded body (the two syncs of
            // /mobile/5/messages differ only there).
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let body = (record["response"] as? [String: Any])?["body"] as? String ?? ""
            #expect(answer["body"] as? String == body, "\(url)")
        }
    }
}
