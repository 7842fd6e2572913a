import ConformReport
import Testing

/// The progress line writes nothing unless enabled, counts on one line it rewrites, and erases it when cleared.
@Suite struct ProgressLineTests {
    @Test func aDisabledLineWritesNothing() {
        let sink = MemorySink()
        let line = ProgressLine(sink: sink, counting: "exchanges replayed", enabled: false)
        for _ in 0..<1000 { line.tick() }
        line.clear()
        #expect(sink.text.isEmpty)
    }

    @Test func anEnabledLineCountsOnOneLineAndIsErased() {
        let sink = MemorySink()
        let line = ProgressLine(sink: sink, counting: "exchanges replayed", enabled: true)
        for _ in 0..<1000 { line.tick() }
        // Every 500 at the least; each count starts by going back to the start of the line.
        #expect(sink.text.contains("\r500 exchanges replayed"))
        #expect(sink.text.hasSuffix("\r1000 exchanges replayed"))
        #expect(!sink.text.contains("\n"))
        line.clear()
        #expect(sink.text.hasSuffix("\r\u{1B}[K"))
    }
}
