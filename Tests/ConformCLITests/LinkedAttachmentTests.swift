import ConformTestSupport
import Foundation
import Testing

/// `import` and `check` of a HAR whose attached body is a link to a file elsewhere: the body is never read, a
/// warning names the entry, and the other entries are imported.
@Suite struct LinkedAttachmentTests {
    @Test func importLeavesALinkedBodyOutAndNamesTheEntry() async throws {
        let scratch = try Scratch("linked")
        let outside = try Scratch("outside")
        try Data("root:secret-hash".utf8).write(to: outside.url.appendingPathComponent("shadow"))
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path("body.json"), withDestinationPath: outside.path("shadow"))
        try Data(#"{"ok":"plain-body"}"#.utf8).write(to: scratch.url.appendingPathComponent("plain.json"))
        func entry(_ n: Int, _ file: String) -> String {
            #"""
            {"startedDateTime":"2026-01-05T10:00:0\#(n).000Z","time":1,
             "request":{"method":"POST","url":"http://h/mobile/\#(n)","headers":[],
                        "postData":{"mimeType":"application/json","_file":"\#(file)"}},
             "response":{"status":200,"headers":[],"content":{"size":20,"mimeType":"application/json","_file":"\#(file)"}}}
            """#
        }
        let har = scratch.path("trace.har")
        try Data(#"{"log":{"version":"1.2","entries":[\#(entry(1, "plain.json")),\#(entry(2, "body.json"))]}}"#.utf8)
            .write(to: URL(fileURLWithPath: har))
        let out = scratch.path("imported")
        let result = await conformInProcess(["import", har, "--out", out], in: scratch.url.path)
        #expect(result.code == 0, "import printed:\n\(result.out)\(result.err)")
        #expect(result.out.contains("Imported 2 exchanges"))
        #expect(
            result.err.contains(
                "warning: $.log.entries[1].request.postData._file: attached body 'body.json' refused: 'body.json' is a symbolic link"
            ))
        #expect(result.err.contains("$.log.entries[1].response.content._file"))
        let lines = try String(contentsOfFile: out + "/exchanges.jsonl", encoding: .utf8)
        #expect(!lines.contains("secret-hash"), "the linked file's content never reaches the recording")
        #expect(lines.contains("plain-body"))
        #expect(lines.contains("refused: 'body.json' is a symbolic link"))
    }
}
