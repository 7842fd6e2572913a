import ConformCore
import ConformDiagnostics
import ConformReport
import ConformRunner
import Foundation
import Testing

/// Nothing from outside reaches the terminal as a control sequence: titles, step names, header values, bodies and
/// transport messages are shown with their control characters escaped, and the reporter's own colours still work.
@Suite struct ConsoleEscapingTests {
    /// Retitles the window and clears the screen when written raw.
    static let hostile = "\u{1b}]0;pwned\u{07}\u{1b}[2J"

    /// Answers with the hostile bytes in a header and in a text body.
    struct HostileService: HTTPHandler {
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            HTTPResponse(
                status: 200, headerFields: ["Content-Type": "text/plain", "X-Evil": ConsoleEscapingTests.hostile],
                body: Data("body \(ConsoleEscapingTests.hostile)".utf8))
        }
    }

    /// Fails the exchange with the hostile bytes in its message, as an adapter's stderr would put them.
    struct HostileTransport: Transport {
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            throw TransportError(.adapter, "adapter stderr:\n\(ConsoleEscapingTests.hostile)")
        }
    }

    func hostileSuite() throws -> Suite {
        try suite(
            #"""
            suite: hostile
            title: "Title \e]0;pwned\a\e[2J"
            steps:
              - name: "step \e]0;pwned\a\e[2J"
                request: {url: "/x"}
                expect: {status: 200, headers: {X-Evil: safe}, body: expected}
            """#, file: "suites/\u{1b}[2Jhostile.yaml")
    }

    func console(_ transport: any Transport, color: Bool) async throws -> String {
        let sink = MemorySink()
        let reporter = ConsoleReporter(sink: sink, color: color, verbose: true)
        _ = await Runner(transport: transport).run(
            RunPlan(suites: [try hostileSuite()], targetDescription: "target \(Self.hostile)"),
            events: { reporter.handle($0) })
        return sink.text
    }

    @Test(arguments: [false, true])
    func aHostileResponseTitleAndNameAreEscaped(color: Bool) async throws {
        let text = try await console(InProcessTransport(HostileService()), color: color)
        #expect(!text.contains("\u{1b}]"))
        #expect(!text.contains("\u{1b}[2J"))
        #expect(!text.contains("\u{07}"))
        #expect(text.contains(#"Title \x1b]0;pwned\x07\x1b[2J"#))
        #expect(text.contains(#"step \x1b]0;pwned\x07\x1b[2J"#))
        #expect(text.contains(#"\x1b[2Jhostile.yaml"#))
        #expect(text.contains(#"\x1b]0;pwned\x07\x1b[2J"#))
        #expect(text.contains("\u{1B}[31m✘\u{1B}[0m") == color, "the reporter's own colours stay")
    }

    @Test func aHostileTransportMessageIsEscaped() async throws {
        let text = try await console(HostileTransport(), color: true)
        #expect(!text.contains("\u{1b}]") && !text.contains("\u{1b}[2J") && !text.contains("\u{07}"))
        #expect(text.contains(#"adapter stderr:"#) && text.contains(#"\x1b]0;pwned\x07\x1b[2J"#))
    }

    @Test func theTerminalEscaperKeepsLinesAndTabsAndEscapesEveryOtherControl() {
        #expect(Escaping.terminal("a\tb\nc") == "a\tb\nc")
        #expect(Escaping.terminal(Self.hostile) == #"\x1b]0;pwned\x07\x1b[2J"#)
        #expect(Escaping.terminal("cr\r del\u{7f} nul\u{0} csi\u{9b}2J") == #"cr\r del\x7f nul\x00 csi\x9b2J"#)
        #expect(Escaping.terminal("abc\u{202e}fed") == #"abc\u{202e}fed"#)
        #expect(Escaping.terminal("café ° — ✔ \\x1b") == "café ° — ✔ \\x1b")
    }

    @Test func aTerminalSinkEscapesTextButKeepsConformsOwnSequences() {
        let memory = MemorySink()
        let sink = TerminalSink(memory)
        sink.write("plain \(Self.hostile)\n")
        sink.write(TerminalText.styled("red \(Self.hostile)", "31", enabled: true))
        #expect(memory.text == "plain \\x1b]0;pwned\\x07\\x1b[2J\n\u{1b}[31mred \\x1b]0;pwned\\x07\\x1b[2J\u{1b}[0m")
    }
}
