import ConformCore
import ConformTestSupport
import Foundation
import Synchronization
import Testing

@testable import ConformReplay
@testable import ConformTraffic

/// Files a HAR or a recording names on disk are read only inside its directory, through no link.
@Suite struct ConfinedFileTests {
    /// A directory with a plain file, a link to a secret outside it, a linked subdirectory and a FIFO.
    func layout() throws -> (scratch: Scratch, outside: Scratch) {
        let scratch = try Scratch("confined")
        let outside = try Scratch("outside")
        try Data("secret".utf8).write(to: outside.url.appendingPathComponent("shadow"))
        try Data(#"{"ok":true}"#.utf8).write(to: scratch.url.appendingPathComponent("body.json"))
        try FileManager.default.createDirectory(
            at: scratch.url.appendingPathComponent("bodies"), withIntermediateDirectories: true)
        try Data("inner".utf8).write(to: scratch.url.appendingPathComponent("bodies/1.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path("link"), withDestinationPath: outside.path("shadow"))
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path("linkdir"), withDestinationPath: outside.path(""))
        #expect(mkfifo(scratch.path("fifo"), 0o600) == 0)
        return (scratch, outside)
    }

    @Test func onlyRegularFilesInsideTheDirectoryAreRead() throws {
        let (scratch, outside) = try layout()
        let dir = scratch.url.path
        func read(_ name: String) -> String {
            do {
                return String(decoding: try ConfinedFile.read(name, in: dir, limit: 1 << 20), as: UTF8.self)
            } catch { return "refused: \(error)" }
        }
        #expect(read("body.json") == #"{"ok":true}"#)
        #expect(read("bodies/1.txt") == "inner")
        #expect(read("link") == "refused: 'link' is a symbolic link")
        #expect(read("linkdir/shadow") == "refused: 'linkdir' is a symbolic link")
        #expect(read("../\(outside.url.lastPathComponent)/shadow") == "refused: a path through '..' or '.'")
        #expect(read("bodies/../body.json") == "refused: a path through '..' or '.'")
        #expect(read("./body.json") == "refused: a path through '..' or '.'")
        #expect(read("bodies//1.txt") == "refused: a path through '..' or '.'")
        #expect(read(outside.path("shadow")) == "refused: an absolute path")
        #expect(read("bodies") == "refused: not a regular file")
        #expect(read("fifo") == "refused: not a regular file", "a FIFO is refused without waiting for a writer")
        #expect(read("none") == "refused: no such file")
        #expect(throws: ConfinedFile.Refusal.tooLarge(4)) { try ConfinedFile.read("body.json", in: dir, limit: 4) }
    }

    func entry(_ url: String, request postFile: String? = nil, response responseFile: String) -> String {
        let post = postFile.map { #","postData":{"mimeType":"text/plain","_file":"\#($0)"}"# } ?? ""
        return #"""
            {"startedDateTime":"2026-01-05T10:00:00.000Z","time":1,
             "request":{"method":"POST","url":"\#(url)","headers":[]\#(post)},
             "response":{"status":200,"headers":[],"content":{"size":11,"mimeType":"application/json","_file":"\#(responseFile)"}}}
            """#
    }

    /// A HAR's `_file` through a link, `..` or an absolute path is left out with a diagnostic naming the entry;
    /// the other entries still read, and nothing of the secret reaches an exchange.
    @Test func aHARsAttachedBodiesStayInItsDirectory() throws {
        let (scratch, outside) = try layout()
        let entries = [
            entry("http://h/mobile/1", response: "body.json"),
            entry("http://h/mobile/2", response: "link"),
            entry("http://h/mobile/3", request: "../\(outside.url.lastPathComponent)/shadow", response: "body.json"),
            entry("http://h/mobile/4", request: "link", response: outside.path("shadow")),
            entry("http://h/mobile/5", response: "linkdir/shadow"),
        ]
        let har = scratch.path("trace.har")
        try Data(#"{"log":{"version":"1.2","entries":[\#(entries.joined(separator: ","))]}}"#.utf8).write(
            to: URL(fileURLWithPath: har))
        guard case .har(let data, let attachments) = try TraceFile.open(har) else {
            Issue.record("not read as a HAR")
            return
        }
        let document = try HARDocument(data, file: "trace.har", attachments: attachments)
        let all = try (0..<document.count).map { try document.exchange($0) }
        #expect(all.count == 5)
        #expect(String(decoding: all[0].response.body, as: UTF8.self) == #"{"ok":true}"#)
        #expect(all[0].omitted.isEmpty)
        for exchange in all {
            #expect(!String(decoding: exchange.request.body + exchange.response.body, as: UTF8.self).contains("secret"))
        }
        #expect(all[1].omitted == ["response.body: 11 bytes attached as 'link', refused: 'link' is a symbolic link"])
        #expect(all[2].omitted.first?.hasPrefix("request.body: attached body '../") == true)
        #expect(all[3].omitted.count == 2)
        #expect(document.incomplete == [1, 2, 3, 4])
        #expect(
            document.refusals.map(\.path) == [
                "$.log.entries[1].response.content._file", "$.log.entries[2].request.postData._file",
                "$.log.entries[3].request.postData._file", "$.log.entries[3].response.content._file",
                "$.log.entries[4].response.content._file",
            ])
        let warning = document.refusals[0].warning
        #expect(warning.hasPrefix("trace.har: warning: $.log.entries[1].response.content._file: attached body 'link'"))
        #expect(warning.contains("refused: 'link' is a symbolic link; the body is left out"))
        #expect(warning.contains("help: an attached body must be a regular file inside the HAR's directory"))
        #expect(document.refusals.allSatisfy { $0.diagnostic.id == .harEntryInvalid })
    }

    /// Remembers every request body it is sent.
    final class Capture: HTTPHandler, Sendable {
        let bodies = Mutex<[Data]>([])
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            bodies.withLock { $0.append(request.body) }
            return HTTPResponse(status: 200, body: Data(#"{"ok":true}"#.utf8))
        }
    }

    /// `replay` of a HAR whose request body links to a file outside sends nothing of that file: the entry is not
    /// sent at all, and the other entries are.
    @Test func replaySendsNoLinkedBody() async throws {
        let (scratch, _) = try layout()
        let entries = [
            entry("http://h/mobile/1", request: "body.json", response: "body.json"),
            entry("http://h/mobile/2", request: "link", response: "body.json"),
        ]
        try Data(#"{"log":{"version":"1.2","entries":[\#(entries.joined(separator: ","))]}}"#.utf8).write(
            to: URL(fileURLWithPath: scratch.path("trace.har")))
        let warnings = Mutex<[TraceWarning]>([])
        let capture = Capture()
        let summary = try await Replayer(transport: InProcessTransport(capture)).replay(
            try Trace.open(scratch.path("trace.har"), name: "trace.har")
        ) { warning in warnings.withLock { $0.append(warning) } }
        #expect(warnings.withLock { $0.map(\.kind) } == [.refusedAttachment])
        #expect(summary.total == 2)
        #expect(summary.unjudged == 1)
        let sent = capture.bodies.withLock { $0 }
        #expect(sent.map { String(decoding: $0, as: UTF8.self) } == [#"{"ok":true}"#])
    }

    /// A recording directory's `exchanges.jsonl` and `meta.json` are not read through links.
    @Test func aRecordingsFilesAreNotReadThroughLinks() throws {
        let (scratch, outside) = try layout()
        let recording = scratch.path("rec")
        try FileManager.default.createDirectory(atPath: recording, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: recording + "/exchanges.jsonl", withDestinationPath: outside.path("shadow"))
        try FileManager.default.createSymbolicLink(
            atPath: recording + "/meta.json", withDestinationPath: outside.path("shadow"))
        #expect {
            try RecordingReader(path: recording)
        } throws: { error in
            "\(error)".contains("cannot open the recording ('exchanges.jsonl' is a symbolic link)")
        }
        #expect {
            try RecordingMeta.load(directory: recording)
        } throws: { error in
            "\(error)".contains("meta.json: error: not read: 'meta.json' is a symbolic link")
        }
        // The same files, plain, read.
        try FileManager.default.removeItem(atPath: recording + "/exchanges.jsonl")
        try FileManager.default.removeItem(atPath: recording + "/meta.json")
        try Data().write(to: URL(fileURLWithPath: recording + "/exchanges.jsonl"))
        let meta = RecordingMeta(createdAt: Date(), redacted: true, pseudonymScheme: "x", redactionRules: [])
        try Data(meta.jsonText().utf8).write(to: URL(fileURLWithPath: recording + "/meta.json"))
        #expect(try RecordingReader(path: recording).next() == nil)
        #expect(try RecordingMeta.load(directory: recording).redacted)
    }
}
