import ConformCore
import ConformTestSupport
import Foundation
import Synchronization
import Testing

@testable import ConformTraffic

/// `Trace`, the one reader of every command: any format by content, records in order, warnings as they are met,
/// and a tally of what was read, skipped and incomplete.
@Suite struct TraceTests {
    static let t0 = Date(timeIntervalSince1970: 1_767_600_000)

    static func exchanges() -> [RecordedExchange] {
        var incomplete = exchange(seq: 3, url: "/mobile/1/data", flow: "d1")
        incomplete.omitted = ["response.body"]
        return [exchange(seq: 1, url: "/mobile/1/a", flow: "d1"), incomplete]
    }

    /// A recording with an exchange, an app event, an unreadable line, an incomplete exchange and a torn tail.
    static func recording(in dir: String) throws {
        let writer = try RecordingWriter(directory: dir, redaction: .disabled)
        let (first, incomplete) = (exchanges()[0], exchanges()[1])
        try writer.write(first)
        try writer.append(event: AppEvent(kind: .logout, at: t0, pushRegId: "d1"))
        writer.close()
        let handle = try #require(FileHandle(forWritingAtPath: dir + "/exchanges.jsonl"))
        handle.seekToEndOfFile()
        handle.write(Data("{\"seq\": 7, \"nonsense\": true}\n".utf8))
        handle.write(Data(incomplete.jsonLine().utf8))
        handle.write(Data(#"{"seq":9,"fl"#.utf8))
        try handle.close()
    }

    @Test func aRecordingStreamsItsRecordsAndNamesWhatItSkipped() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.recording(in: dir)
        let warnings = Mutex<[TraceWarning]>([])
        let records = try Trace.open(dir).records { warning in warnings.withLock { $0.append(warning) } }
        let read = try await records.all()
        #expect(read.map(\.seq) == [1, 2, 3])
        let seen = warnings.withLock { $0 }
        #expect(seen.map(\.kind) == [.unreadable, .tornTail])
        #expect(seen.first?.text.hasPrefix("\(dir)/exchanges.jsonl:3:1: warning: invalid exchange") == true, "\(seen)")
        let torn = "\(dir)/exchanges.jsonl:5:1: warning: the last line is incomplete"
        #expect(seen.last?.text.hasPrefix(torn) == true, "\(seen)")
        #expect(records.tally.exchanges == 2)
        #expect(records.tally.events == 1)
        #expect(records.tally.unreadable == 1)
        #expect(records.tally.tornTail)
        #expect(records.tally.incomplete == 1)
        #expect(
            records.tally.incompleteExchanges
                == [TraceTally.Incomplete(seq: 3, method: .post, target: "/mobile/1/data", omitted: "response.body")])
        let exchanges = try Trace.open(dir + "/exchanges.jsonl").exchanges()
        #expect(try await exchanges.all().map(\.seq) == [1, 3], "app events are left out, the file itself reads")
    }

    @Test func aHARIsToldByItsContentAndReadInFileOrStartOrder() async throws {
        let scratch = try Scratch()
        let late = exchange(seq: 1, url: "/mobile/1/late", flow: "d1")
        var early = exchange(seq: 2, url: "/mobile/1/early", flow: "d1")
        early.startedAt = late.startedAt.addingTimeInterval(-5)
        // Named like anything: the content says it is a HAR.
        try HAR.export([late, early]).write(to: URL(fileURLWithPath: scratch.path("trace.json")))
        let trace = try Trace.open(scratch.path("trace.json"), name: "trace.json")
        #expect(trace.name == "trace.json")
        #expect(try await trace.records().all().map(\.seq) == [1, 2])
        #expect(try await trace.records(order: .start).all().map(\.seq) == [2, 1])
        let exchanges = trace.exchanges()
        #expect(try await exchanges.all().map(\.request.target) == ["/mobile/1/late", "/mobile/1/early"])
        #expect(exchanges.tally.exchanges == 2)
        #expect(exchanges.tally.unreadable == 0)
    }

    @Test func aHARsSkippedEntriesAreWarnedBeforeItsFirstRecordAndCounted() async throws {
        let scratch = try Scratch()
        let good = #"""
            {"startedDateTime":"2026-01-05T08:00:00Z","time":1,
             "request":{"method":"GET","url":"http://h/mobile/1/a","headers":[]},
             "response":{"status":200,"headers":[],"content":{"size":0,"text":""}}}
            """#
        // An entry without a request, then one that reads.
        try Data(#"{"log":{"version":"1.2","entries":[{"response":{}},\#(good)]}}"#.utf8).write(
            to: URL(fileURLWithPath: scratch.path("t.har")))
        let warnings = Mutex<[TraceWarning]>([])
        let records = try Trace.open(scratch.path("t.har"), name: "t.har").records { warning in
            warnings.withLock { $0.append(warning) }
        }
        var iterator = records.makeAsyncIterator()
        let first = try iterator.nextRecord()
        #expect(first.map { if case .exchange(let e) = $0 { e.request.url } else { "" } } == "http://h/mobile/1/a")
        let seen = warnings.withLock { $0 }
        #expect(seen.map(\.kind) == [.unreadable])
        #expect(seen.first?.text.hasPrefix("t.har: warning: $.log.entries[0]") == true, "\(seen)")
        #expect(try iterator.nextRecord() == nil)
        #expect(records.tally.unreadable == 1)
        #expect(records.tally.exchanges == 1)
    }

    @Test func anEmptyFileIsAnEmptyRecording() async throws {
        let scratch = try Scratch()
        try Data().write(to: URL(fileURLWithPath: scratch.path("empty.jsonl")))
        let records = try Trace.open(scratch.path("empty.jsonl")).records()
        #expect(try await records.all().isEmpty)
        #expect(records.tally.exchanges == 0 && records.tally.unreadable == 0)
    }

    @Test func whatIsNeitherARecordingNorAHARIsRefusedWithItsStart() throws {
        let scratch = try Scratch()
        try Data("suite: s\n".utf8).write(to: URL(fileURLWithPath: scratch.path("s.yaml")))
        #expect(throws: TraceFile.Failure.self) { try Trace.open(scratch.path("s.yaml")) }
        #expect(throws: TraceFile.Failure.self) { try Trace.open(scratch.path("missing")) }
    }
}

/// What `diff` asks before it reads an input as a trace or as suites: the content decides.
@Suite struct TraceSniffTests {
    @Test func tracesAreToldFromSuitesByTheirFirstBytes() throws {
        let scratch = try Scratch()
        func file(_ name: String, _ text: String) throws -> String {
            let path = scratch.path(name)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        #expect(TraceFile.holdsTrace(try file("a.json", #"{"log": {"entries": []}}"#)))
        #expect(TraceFile.holdsTrace(try file("b.txt", #"{"seq":1,"event":"logout","at":"2026-01-05T08:00:00Z"}"#)))
        #expect(!TraceFile.holdsTrace(try file("s.yaml", "suite: s\ntitle: t\n")))
        #expect(!TraceFile.holdsTrace(try file("j.json", #"{"suite": "s"}"#)))
        #expect(!TraceFile.holdsTrace(scratch.path("missing")))
        try FileManager.default.createDirectory(atPath: scratch.path("suites"), withIntermediateDirectories: true)
        #expect(!TraceFile.holdsTrace(scratch.path("suites")), "a directory without exchanges.jsonl holds suites")
        try FileManager.default.createDirectory(atPath: scratch.path("rec"), withIntermediateDirectories: true)
        _ = try file("rec/exchanges.jsonl", "")
        #expect(TraceFile.holdsTrace(scratch.path("rec")))
    }
}
