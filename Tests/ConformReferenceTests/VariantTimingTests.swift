import ConformCore
import Foundation
import Synchronization
import Testing

@testable import ConformReference

/// A clock tests move by hand; it starts at the real time so JWTs minted now stay valid.
final class ManualClock: Sendable {
    private let current = Mutex(Date())

    var now: Date { current.withLock { $0 } }
    func advance(milliseconds: Int) { current.withLock { $0 += Double(milliseconds) / 1000 } }
    /// The closure to hand to `ReferenceImplementation(…clock:)`.
    var function: @Sendable () -> Date { { [self] in now } }
}

/// A harness over a reference with `variants` and `faults` whose time is `clock`.
func variantHarness(
    _ variants: Set<ReferenceVariant>, faults: Set<ReferenceFault> = [], clock: ManualClock = ManualClock()
) -> Harness {
    Harness(
        ReferenceImplementation(configuration: .default, faults: faults, variants: variants, clock: clock.function))
}

@Suite("Variants: timing")
struct VariantTimingTests {
    /// asyncDelivery: a push is accepted at once but reaches message sync only 200–800 ms later.
    @Test func asyncDeliveryShowsAPushOnlyAfterItsDelay() {
        let clock = ManualClock()
        let h = variantHarness([.asyncDelivery], clock: clock)
        let user = freshUser()
        let id = h.register()
        h.personalize(id, user)
        let push = h.push(to: ["externalUserId": .string(user)])
        #expect(push.status == 200)
        #expect(push.bulk?["messageCount"] == 1)
        #expect(h.syncedIds(id).isEmpty, "not visible at once")
        clock.advance(milliseconds: 199)
        #expect(h.syncedIds(id).isEmpty, "never before 200 ms")
        clock.advance(milliseconds: 601)
        #expect(h.syncedIds(id).count == 1, "always by 800 ms")
        // Without the variant the push is there at once.
        let plain = Harness()
        let other = plain.register()
        plain.personalize(other, user)
        _ = plain.push(to: ["externalUserId": .string(user)])
        #expect(plain.syncedIds(other).count == 1)
    }

    /// asyncDelivery keeps send order per device: what sync shows is always a prefix of what was sent.
    ///
    /// Each push draws its delay, and a push never overtakes an earlier one, so when an early push draws a long
    /// delay the later ones all arrive with it. Whether one run's arrivals spread over time is therefore chance
    /// (about one run in 25 arrives in one step); the runs are seeded, so the outcome is the same every time.
    @Test(arguments: ["order-1", "order-2", "order-3", "order-4"])
    func asyncDeliveryKeepsSendOrderPerDevice(seed: String) {
        let clock = ManualClock()
        var configuration = ReferenceConfiguration.default
        configuration.seed = seed
        let h = Harness(
            ReferenceImplementation(
                configuration: configuration, faults: [], variants: [.asyncDelivery], clock: clock.function))
        let user = freshUser()
        let a = h.register()
        let b = h.register(dialect: .ios)
        h.personalize(a, user)
        h.personalize(b, user, dialect: .ios)
        var sent: [String] = []
        for n in 0..<12 {
            sent.append("push-\(n)")
            _ = h.push(to: ["externalUserId": .string(user)], text: "push-\(n)")
            clock.advance(milliseconds: 7)
        }
        var seenCounts: Set<Int> = []
        for _ in 0..<100 {
            let texts = h.sync(a).compactMap { $0["gcm.notification.body"]?.stringValue }
            #expect(texts == Array(sent.prefix(texts.count)), "device a sees pushes out of order: \(texts)")
            let apns = h.sync(b, platform: "APNS").compactMap { $0["aps"]?["alert"]?["body"]?.stringValue }
            #expect(apns == Array(sent.prefix(apns.count)), "device b sees pushes out of order: \(apns)")
            seenCounts.insert(texts.count)
            clock.advance(milliseconds: 10)
        }
        #expect(h.sync(a).count == sent.count, "all arrive within 800 ms of the last send")
        #expect(seenCounts.contains(0), "none before 200 ms")
        #expect(seenCounts.count > 2, "deliveries spread over time, not all at once")
        // Delivery reports still work on delivered pushes.
        let ids = h.syncedIds(a)
        #expect(h.syncedIds(a, drIDs: ids).isEmpty)
    }

    /// eventualPeople: B5 and B1 lag about 300 ms behind writes, the device's own reads do not (D18).
    @Test func eventualPeopleLagsBackendReadsButNotTheDevicesOwn() {
        let clock = ManualClock()
        let h = variantHarness([.eventualPeople], clock: clock)
        let user = freshUser()
        let id = h.register()
        h.personalize(id, user)
        let lookup = "/people/2/persons?identifier=\(user)&type=EXTERNAL_ID"
        #expect(h.backend(.get, lookup).status == 404, "a person created just now is not found yet")
        #expect(h.backend(.get, "/people/2/contactInformation/push/\(id)").json["errorCode"] == 48013)
        #expect(h.externalUserId(of: id) == user, "M7 reads its own writes")
        #expect(h.mobile(.get, "/mobile/1/appinstance/\(id)", caller: id).status == 200, "M3 too")
        clock.advance(milliseconds: 299)
        #expect(h.backend(.get, lookup).status == 404)
        clock.advance(milliseconds: 1)
        let person = h.backend(.get, lookup)
        #expect(person.status == 200)
        #expect(person.json["contactInformation"]?["push"]?[0]?["registrationId"]?.stringValue == id)
        #expect(h.backend(.get, "/people/2/contactInformation/push/\(id)").status == 200)

        // A later write (depersonalize) shows late too: the old person keeps the device for a while.
        h.depersonalize(id)
        #expect(h.externalUserId(of: id) == nil)
        clock.advance(milliseconds: 100)
        #expect(h.backend(.get, lookup).json["contactInformation"]?["push"]?.arrayValue?.count == 1)
        clock.advance(milliseconds: 250)
        #expect(h.backend(.get, lookup).json["contactInformation"]?["push"]?.arrayValue?.isEmpty ?? true)
    }

    /// eventualPeople keeps only the copies a read can still need.
    @Test func eventualPeopleHistoryIsBounded() {
        var history = PeopleHistory(initial: ReferenceState(seed: "h"), lag: 0.3)
        var state = ReferenceState(seed: "h")
        let start = Date()
        var largest = 0
        for step in 0..<2000 {
            let now = start.addingTimeInterval(Double(step) * 0.003)
            history.willWrite(at: now, current: state)
            _ = state.newAnonymousPerson(applicationId: "default")
            history.didWrite(at: now)
            largest = max(largest, history.copies.count)
            // Reads never see a write younger than the lag, nor miss one older than lag + granularity.
            let seen = history.view(at: now, current: state).persons.count
            #expect(seen <= max(0, step - 99), "a read at step \(step) sees a write younger than 300 ms")
            #expect(seen >= step - 117, "a read at step \(step) misses writes older than 350 ms")
        }
        #expect(largest <= 9, "at most lag / granularity + 2 copies (saw \(largest))")
        let later = start.addingTimeInterval(2000 * 0.003 + 0.3)
        #expect(history.view(at: later, current: state).persons.count == 2000)
    }

    /// latency: `send` waits 150 ms, and concurrent sends all get their answers. That the wait suspends instead of
    /// blocking a thread is shown by cancellation (below): a blocked thread could not be cancelled. How fast many
    /// sends overlap is a matter of speed, left to the benchmarks.
    @Test func latencyDelaysEveryAnswer() async throws {
        let reference = ReferenceImplementation(variants: [.latency])
        #expect(reference.latency == .milliseconds(150))
        #expect(ReferenceImplementation().latency == .zero)
        let request = HTTPRequest(
            method: .get, url: "http://mobile.conform.invalid/mobile/1/baseurl",
            headerFields: ["Authorization": "App \(appCode)"])
        let clock = ContinuousClock()
        let single = try await clock.measure { _ = try await reference.send(request) }
        #expect(single >= .milliseconds(150))
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<32 { group.addTask { try await reference.send(request).status.code } }
            for try await status in group { #expect(status == 200) }
        }
        // The synchronous entry point blocks its (server) thread for the same time.
        let blocking = clock.measure { _ = reference.handle(request) }
        #expect(blocking >= .milliseconds(150))
    }

    /// latency applies to errors too, and a cancelled wait throws.
    @Test func latencyDelaysErrorsAndHonoursCancellation() async throws {
        let reference = ReferenceImplementation(variants: [.latency])
        let bad = HTTPRequest(method: .get, url: "/mobile/1/baseurl")
        let clock = ContinuousClock()
        var status = 0
        let elapsed = try await clock.measure { status = try await reference.send(bad).status.code }
        #expect(status == 401)
        #expect(elapsed >= .milliseconds(150))
        let task = Task { try await reference.send(bad) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
