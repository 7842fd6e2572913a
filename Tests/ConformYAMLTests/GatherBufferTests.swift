import Testing

@testable import ConformYAML

@Suite struct GatherBufferTests {
    final class Counted {
        static let live = LiveCount()
        init() { Self.live.add(1) }
        deinit { Self.live.add(-1) }
    }

    final class LiveCount: @unchecked Sendable {
        private var value = 0
        func add(_ n: Int) { value += n }
        var current: Int { value }
    }

    @Test func takeAllMovesEveryElementOutAndTheBufferServesAgain() {
        let buffer = GatherBuffer<String>(capacity: 2)
        for i in 0..<37 { buffer.append("element \(i) with enough text to live on the heap") }
        let first = buffer.takeAll()
        #expect(first.count == 37)
        #expect(first.last == "element 36 with enough text to live on the heap")
        #expect(buffer.count == 0)
        #expect(buffer.takeAll().isEmpty)
        buffer.append("again")
        #expect(buffer.takeAll() == ["again"])
    }

    @Test func elementsLeftInABufferAreReleasedWithIt() {
        let before = Counted.live.current
        do {
            let buffer = GatherBuffer<Counted>()
            for _ in 0..<20 { buffer.append(Counted()) }
            let taken = buffer.takeAll()
            for _ in 0..<5 { buffer.append(Counted()) }
            #expect(taken.count == 20)
            #expect(Counted.live.current == before + 25)
        }
        #expect(Counted.live.current == before)
    }
}
