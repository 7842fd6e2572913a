import ConformCore
import Synchronization
import Testing

@testable import ConformRunner

/// A wait's window counts the time the runner was awake to watch the flows, never a pause in which the process was
/// starved of the processor. Each test gives the wait its own pause, so no test depends on the machine's load.
@Suite struct EventBoardTests {
    typealias Pause = @Sendable () async -> Duration
    let board = EventBoard(flows: ["waiter", "emitter"])

    /// A pause that takes no time but says it took `lasted`, and runs `then` with how many pauses there have been.
    func pause(lasting lasted: Duration, then: @escaping @Sendable (Int) async -> Void) -> Pause {
        let count = Mutex(0)
        return {
            let n = count.withLock {
                $0 += 1
                return $0
            }
            await then(n)
            return lasted
        }
    }

    @Test func aStarvedRunnerWaitsForAnEventThatComesLate() async {
        // Every look comes 3 s after the last, three times the window: the process had no processor, and neither had
        // the emitter. The event comes after the third pause.
        let pause = pause(lasting: .seconds(3)) { [board] n in
            if n == 3 { await board.emit("pushed", flow: "emitter", values: [:]) }
        }
        let outcome = await board.wait(
            for: "pushed", from: "emitter", waiter: "waiter", window: .seconds(1), pause: pause)
        #expect(throws: Never.self) { try outcome.get() }
        #expect((try? outcome.get())?.flow == "emitter")
    }

    @Test func aStuckSuiteStillStallsAfterTheWindowCountedInPauses() async {
        let pauses = Mutex(0)
        let pause = pause(lasting: .seconds(3)) { n in pauses.withLock { $0 = n } }
        let outcome = await board.wait(
            for: "pushed", from: "emitter", waiter: "waiter", window: .seconds(1), pause: pause)
        #expect(outcome.failure == .stalled)
        // Each pause counts as the longest counted, 100 ms: ten of them fill the 1 s window.
        #expect(pauses.withLock { $0 } == 10)
    }

    @Test func anExchangeUnderWayKeepsTheWaitAliveBeyondItsWindow() async {
        // The emitter's exchange is under way for fifty pauses of 100 ms, five windows, then it emits.
        let pause = pause(lasting: .milliseconds(100)) { [board] n in
            if n == 1 { await board.started("emitter") }
            if n == 50 {
                await board.ended("emitter")
                await board.emit("pushed", flow: "emitter", values: [:])
            }
        }
        let outcome = await board.wait(
            for: "pushed", from: "emitter", waiter: "waiter", window: .seconds(1), pause: pause)
        #expect(outcome.failure == nil)
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
