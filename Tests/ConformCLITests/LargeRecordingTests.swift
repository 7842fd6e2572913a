import ConformCLI
import ConformCore
import ConformReference
import ConformServer
import ConformTestSupport
import ConformTraffic
import Foundation
import Testing

/// A large recording costs what one exchange costs: `record --append` listens without reading it whole, and
/// `export` writes the HAR entry by entry.
@Suite(.serialized) struct LargeRecordingTests {
    static let sample = TrafficCommandTests.root + "/recordings/personalization-flow"

    /// A recording of about `megabytes` MB made of the sample's lines renumbered; the first line carries the largest
    /// number (so only a scan of the whole file finds where numbering goes on), and an app event sits in the middle.
    static func largeRecording(_ directory: String, megabytes: Int) throws -> Int {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: sample + "/meta.json", toPath: directory + "/meta.json")
        let lines = try String(contentsOfFile: sample + "/exchanges.jsonl", encoding: .utf8)
            .split(separator: "\n").map { line in String(line.drop { $0 != "," }) }
        let file = directory + "/exchanges.jsonl"
        FileManager.default.createFile(atPath: file, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: file))
        defer { try? handle.close() }
        var chunk = ""
        var written = 0
        var count = 0
        while written < megabytes << 20 {
            count += 1
            let seq = count == 1 ? 1_000_000 : count
            if count == 1000 {
                chunk += #"{"seq":1000,"event":"logout","at":"2026-01-05T08:00:00Z"}"# + "\n"
            } else {
                chunk += "{\"seq\":\(seq)" + lines[count % lines.count] + "\n"
            }
            if chunk.utf8.count > 1 << 20 {
                written += chunk.utf8.count
                try handle.write(contentsOf: Data(chunk.utf8))
                chunk = ""
            }
        }
        try handle.write(contentsOf: Data(chunk.utf8))
        return count
    }

    /// Restarting after `kill -9` on a large recording: the proxy listens at once (the harness waits at most 30 s for
    /// the banner; reading 48 MB whole before listening takes longer in this build), the torn last line is removed
    /// and reported, and the first exchange is appended after the largest number in the file.
    @Test(.timeLimit(.minutes(3)))
    func recordAppendListensAtOnceOnALargeRecording() async throws {
        let scratch = try Scratch("large-append")
        let out = scratch.path("big")
        let count = try Self.largeRecording(out, megabytes: 48)
        let file = out + "/exchanges.jsonl"
        let whole = try #require(FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber).intValue
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try handle.seekToEnd()
        let torn = #"{"seq":1000001,"flow":"torn","upstr"#
        try handle.write(contentsOf: Data(torn.utf8))
        try handle.close()

        let upstream = try HTTPServer(handler: ReferenceImplementation())
        try upstream.start()
        defer { upstream.stop() }
        let args = [
            "record", "--append", "--listen", "127.0.0.1:0", "--upstream", upstream.baseURL, "--out", out,
            "--no-redact",
        ]
        let child = try await offThePool { try ConformProcess(args, scratch: scratch, banner: "Recording on ") }
        let id = try await DeviceClient(base: child.baseURL).register(token: "append-after-kill")
        #expect(!id.isEmpty)
        let result = try await offThePool { try child.interrupt() }
        #expect(result.code == 0, "record printed:\n\(result.out)\(result.err)")
        #expect(result.out.contains("Recorded 1 exchange into \(out)"))
        #expect(
            result.err.contains(
                "\(file): warning: the last line was incomplete (\(torn.utf8.count) bytes without a newline at byte \(whole)); "
                    + "removed before appending"), "\(result.err)")

        // The file as it was, then one whole line numbered after the largest.
        let reader = try RecordingReader(path: out)
        var records = 0
        var last: TraceRecord?
        while let record = try reader.nextRecord() {
            records += 1
            last = record
        }
        #expect(reader.truncatedTail == nil)
        #expect(reader.skippedCount == 0)
        #expect(records == count + 1)
        guard case .exchange(let appended) = last else {
            Issue.record("the last record is not the appended exchange")
            return
        }
        #expect(appended.seq == 1_000_001)
        #expect(appended.request.url.hasPrefix("/mobile/1/appinstance"))
    }

    /// `export` of a large recording holds one exchange at a time: its peak memory is that of exporting a small one
    /// plus a margin well under the recording's size, and the HAR it writes reads back whole.
    @Test(.timeLimit(.minutes(5)), .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time")))
    func exportStreamsEntryByEntry() async throws {
        let scratch = try Scratch("large-export")
        let big = scratch.path("big")
        let count = try Self.largeRecording(big, megabytes: 24)
        func peak(_ recording: String, _ har: String) async throws -> Int {
            let outcome = try await ChildProcess.output(
                "/usr/bin/time",
                [
                    "-f", "peak-kb %M", TrafficCommandTests.root + "/.build/debug/conform", "export", recording,
                    "--out", har,
                ])
            #expect(outcome.status == 0, "\(outcome.output)")
            let line = try #require(outcome.output.split(separator: "\n").last { $0.hasPrefix("peak-kb ") })
            return try #require(Int(line.dropFirst("peak-kb ".count)))
        }
        let small = try await peak(Self.sample, scratch.path("small.har"))
        let large = try await peak(big, scratch.path("big.har"))
        // The document built whole took about five times the recording (120 MB here); streamed, a few MB more than
        // a 16-exchange export.
        #expect(large < small + 12 * 1024, "export peaked at \(large) kB against \(small) kB for the sample")

        let trace = try Trace.open(scratch.path("big.har"))
        var exchanges = 0
        var events = 0
        var records = trace.records(order: .file).makeAsyncIterator()
        while let record = try records.nextRecord() {
            if case .event = record { events += 1 } else { exchanges += 1 }
        }
        #expect(exchanges == count - 1)
        #expect(events == 1)
        let text = try String(contentsOfFile: scratch.path("big.har"), encoding: .utf8)
        #expect(text.hasPrefix("{\n  \"log\": {\n    \"version\": \"1.2\","))
        #expect(text.hasSuffix("\n    ]\n  }\n}\n"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("big.har") + ".tmp"))
    }
}
