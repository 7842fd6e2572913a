import Testing

@testable import ConformServer

/// The watch's rules on a clock the test moves: connections are keys only, with no socket to shut down.
@Suite("ConnectionWatch")
struct ConnectionWatchTests {
    let start = ContinuousClock.now

    func connection(_ number: Int) -> OpaquePointer { OpaquePointer(bitPattern: 0x1000 * number)! }
    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    @Test func aBodyBelowTheMinimumRateIsCutAfterTheGrace() {
        let watch = ConnectionWatch(limits: HTTPServerLimits(minBodyBytesPerSecond: 1024, bodyGraceSeconds: 2))
        let (dripper, uploader) = (connection(1), connection(2))
        for client in [dripper, uploader] {
            watch.opened(client, socket: -1, now: at(0))
            watch.headReceived(client, now: at(10))
        }
        watch.bodyReceived(dripper, bytes: 1)
        watch.bodyReceived(uploader, bytes: 4000)
        #expect(watch.sweep(now: at(1900)) == 0, "within the grace")
        #expect(watch.sweep(now: at(2100)) == 1)
        #expect(watch.isCut(dripper))
        #expect(!watch.isCut(uploader), "4000 bytes in 2.1 s is above 1 KB/s")
        #expect(watch.slowRequestCount == 1 && watch.cutCount == 0)
        // The uploader must keep its average up.
        #expect(watch.sweep(now: at(5000)) == 1)
        #expect(watch.isCut(uploader))
    }

    /// A client that has sent all its head announced (no body, or a short one) owes nothing more: a server slow to
    /// get to it (a busy thread) must not take that for a slow client.
    @Test func aBodyThatHasFullyArrivedIsNeverSlow() {
        let watch = ConnectionWatch(limits: HTTPServerLimits(minBodyBytesPerSecond: 1024, bodyGraceSeconds: 2))
        let (get, post, chunked) = (connection(1), connection(2), connection(3))
        for client in [get, post, chunked] {
            watch.opened(client, socket: -1, now: at(0))
            watch.headReceived(client, now: at(10))
        }
        watch.bodyLength(get, 0)
        watch.bodyLength(post, 100)
        watch.bodyReceived(post, bytes: 100)
        watch.bodyReceived(chunked, bytes: 100)
        #expect(watch.sweep(now: at(5000)) == 1)
        #expect(watch.isCut(chunked), "a body of unknown length must keep its rate")
        #expect(!watch.isCut(get) && !watch.isCut(post))
    }

    @Test func theWholeRequestHasADeadlineHowEverFastItsBodyComes() {
        let watch = ConnectionWatch(
            limits: HTTPServerLimits(headerTimeoutSeconds: 5, requestTimeoutSeconds: 20, minBodyBytesPerSecond: 0))
        let client = connection(1)
        watch.opened(client, socket: -1, now: at(0))
        watch.headReceived(client, now: at(4000))
        watch.bodyReceived(client, bytes: 1_000_000)
        #expect(watch.sweep(now: at(19_900)) == 0)
        #expect(watch.sweep(now: at(20_000)) == 1)
        #expect(watch.slowRequestCount == 1)
    }

    @Test func aRequestBeingHandledIsNeverCut() {
        let watch = ConnectionWatch(limits: HTTPServerLimits(maxConnections: 40, maxWaitingConnections: 1))
        let handled = connection(1)
        watch.opened(handled, socket: -1, now: at(0))
        watch.headReceived(handled, now: at(0))
        watch.requestReceived(handled)
        watch.opened(connection(2), socket: -1, now: at(10))
        watch.opened(connection(3), socket: -1, now: at(20))
        #expect(watch.sweep(now: at(3_600_000)) == 1, "only the waiting connection left")
        #expect(!watch.isCut(handled))
        // Answered, it waits for its next head again, with a fresh clock.
        watch.requestDone(handled, now: at(3_600_000))
        #expect(watch.sweep(now: at(3_605_000)) == 0)
        #expect(watch.sweep(now: at(3_610_000)) == 1)
        #expect(watch.isCut(handled))
    }

    @Test func aNewConnectionPastTheBudgetClosesTheLongestWaiting() {
        let watch = ConnectionWatch(limits: HTTPServerLimits(maxConnections: 10, maxWaitingConnections: 3))
        let handled = connection(9)
        watch.opened(handled, socket: -1, now: at(0))
        watch.headReceived(handled, now: at(0))
        watch.requestReceived(handled)
        for number in 1...3 { watch.opened(connection(number), socket: -1, now: at(number * 100)) }
        #expect(watch.crowdedCount == 0, "three waiting is within the budget")
        watch.opened(connection(4), socket: -1, now: at(400))
        #expect(watch.crowdedCount == 1)
        #expect(watch.isCut(connection(1)), "the longest waiting")
        #expect(!watch.isCut(handled) && !watch.isCut(connection(4)))
        // A cut connection no longer counts, even before libmicrohttpd closes it.
        watch.opened(connection(5), socket: -1, now: at(500))
        #expect(watch.crowdedCount == 2)
        #expect(watch.isCut(connection(2)) && !watch.isCut(connection(3)))
    }

    @Test func withNineTenthsOfTheSlotsOpenTheGraceIsOneSecond() {
        let limits = HTTPServerLimits(bodyGraceSeconds: 5, maxConnections: 10, maxWaitingConnections: 10)
        let watch = ConnectionWatch(limits: limits)
        for number in 1...8 {
            watch.opened(connection(number), socket: -1, now: at(0))
            watch.headReceived(connection(number), now: at(0))
        }
        #expect(watch.sweep(now: at(1100)) == 0, "eight of ten open: the grace is 5 s")
        watch.opened(connection(9), socket: -1, now: at(0))
        watch.headReceived(connection(9), now: at(0))
        #expect(watch.sweep(now: at(1100)) == 9)
    }

    @Test func theDefaultBudgetKeepsATenthFree() {
        #expect(HTTPServerLimits.default.waitingBudget == 922)
        #expect(HTTPServerLimits(maxConnections: 1).waitingBudget == 1)
        #expect(HTTPServerLimits(maxConnections: 24).waitingBudget == 22)
    }
}
