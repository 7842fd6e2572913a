import ConformCore
import ConformMobileMessaging
import ConformReference
import Foundation
import Testing

@testable import ConformExplore

/// The reports a device sends back about the messages a sync handed it (M14 `mIDs` and `drIDs`, M15, M16): drawn
/// only from message ids an earlier sync of the same installation captured, written as an ordinary suite that
/// captures them with a list path and sends them back by name, and compared in lock-step with the reference:
/// every conforming variant plays like it, and each fault of delivery and seen handling shows.
@Suite struct ExploreReportsTests {
    let operations = MobileMessaging.exploration.operations
    static let reports = ["sync-holding", "sync-reporting", "delivery-report", "seen-report"]

    func index(_ name: String) -> Int { operations.firstIndex { $0.name == name }! }

    func step(_ name: String, device: Int = 0, person: Int = 0, _ choices: [Int] = []) -> ExploreStep {
        let op = operations[index(name)]
        let filled = choices.isEmpty ? Array(repeating: 0, count: op.parameters.count) : choices
        return ExploreStep(operation: index(name), device: device, person: person, choices: filled)
    }

    func reportSteps(_ candidates: [ExploreStep]) -> [ExploreStep] {
        candidates.filter { Self.reports.contains(operations[$0.operation].name) }
    }

    let generator = SequenceGenerator(
        operations: MobileMessaging.exploration.operations, devices: 3, persons: 2, maxLength: 12)

    /// No report before a sync captured a message id the model expects: not after a registration, not after a sync
    /// of a device no push was meant for, and only on the installation that captured.
    @Test func reportsAreOfferedOnlyOnceASyncOfTheDeviceCapturedAMessageId() {
        #expect(reportSteps(generator.candidates(after: ExploreSequence([step("register")]))).isEmpty)
        let emptySync = ExploreSequence([step("register"), step("register", device: 1), step("sync")])
        #expect(reportSteps(generator.candidates(after: emptySync)).isEmpty)
        let received = ExploreSequence([
            step("register"), step("register", device: 1), step("push-to-device"), step("sync"),
        ])
        let offered = reportSteps(generator.candidates(after: received))
        #expect(offered.allSatisfy { $0.device == 0 && $0.choices.allSatisfy { $0 == 0 } })
        #expect(Set(offered.map { operations[$0.operation].name }) == Set(Self.reports))
        // A second sync that hands the message out again is a second capture to choose from.
        let twice = ExploreSequence(received.steps + [step("sync")])
        #expect(
            reportSteps(generator.candidates(after: twice)).filter { $0.operation == index("seen-report") }
                .map(\.choices) == [[0], [1]])
    }

    /// A report is drawn more likely where the device's person has another device a push is meant for (whose copy
    /// must stay), and a delivery report makes the model stop expecting the reported messages and invites a sync
    /// of that other device.
    @Test func theModelFavoursAReportNextToASiblingAndFollowsIt() {
        let siblings = [
            step("register"), step("register", device: 1), step("personalize", person: 0),
            step("personalize", device: 1, person: 0), step("push-to-user", person: 0), step("sync"),
        ]
        let model = ExploreModel.after(siblings, operations)
        #expect(model.devices.map(\.held) == [1, 0])
        #expect(model.devices.map(\.pending) == [0, 1])
        #expect(model.uses(step("delivery-report"), operations[index("delivery-report")]) == 4)
        #expect(model.uses(step("seen-report"), operations[index("seen-report")]) == 4)
        let reported = ExploreModel.after(siblings + [step("delivery-report")], operations)
        #expect(reported.devices[0].held == 0)
        // The sibling's sync now shows whether its copy stayed; a second report of the same capture adds nothing.
        #expect(reported.devices[1].siblingReported)
        #expect(reported.uses(step("sync", device: 1), operations[index("sync")]) == 3)
        #expect(reported.uses(step("seen-report"), operations[index("seen-report")]) == 1)
        #expect(reported.filledCaptures("received", device: 0) == [0])
        #expect(
            ExploreModel.after(siblings + [step("sync")], operations).filledCaptures("received", device: 0)
                == [0, 1])
    }

    /// On a fixed seed, every report drawn sends back a capture of its own installation that the model expected to
    /// hold something, every report operation is drawn, and the drawn sequences stay valid as drawn.
    @Test func onAFixedSeedEveryReportSendsBackAnEarlierCaptureOfItsDevice() {
        var random = SeededRandom(seed: 11)
        var drawn: Set<String> = []
        for _ in 0..<300 {
            let sequence = generator.draw(&random)
            #expect(sequence.normalized(operations) == sequence)
            for (i, step) in sequence.steps.enumerated() {
                let op = operations[step.operation]
                guard op.parameters.contains(where: { $0.captured != nil }) else { continue }
                drawn.insert(op.name)
                let model = ExploreModel.after(sequence.steps.prefix(i), operations)
                for (parameter, choice) in zip(op.parameters, step.choices) {
                    #expect(model.filledCaptures(parameter.captured!, device: step.device).contains(choice))
                }
            }
        }
        #expect(drawn == Set(Self.reports))
    }

    /// The suite captures each sync's message ids as a list and sends them back by name; a report whose sync is
    /// gone (shrinking) goes too, and merging devices keeps what a device captured with it.
    @Test func theSuiteSendsBackWhatASyncCaptured() {
        let sequence = ExploreSequence([
            step("register"), step("push-to-device"), step("sync"), step("delivery-report"), step("seen-report"),
            step("sync-reporting"),
        ])
        let writer = SuiteWriter(
            exploration: MobileMessaging.exploration,
            application: MobileMessaging.exploration.applications["all"]!, applicationMode: "all")
        let lines = writer.render(sequence, id: "x", title: "", description: "", window: "50ms")
            .split(separator: "\n").map(String.init)
        #expect(lines.contains(#"    capture: {received1: "$.payloads[*]['gcm.notification.messageId']"}"#))
        #expect(lines.contains(#"      json: {dlrIds: "{{ received1 }}"}"#))
        #expect(lines.contains(#"      json: {messages: "{{ each received1 'messageId' timestampDelta=3 }}"}"#))
        #expect(lines.contains(#"      json: {mIDs: "{{ received1 }}", drIDs: "{{ received1 }}"}"#))
        #expect(lines.contains(#"    capture: {received2: "$.payloads[*]['gcm.notification.messageId']"}"#))
        #expect(lines.contains(#"  - name: "delivery-report d1 (delivered=received1) [M15]""#))
        var withoutSync = sequence.steps
        withoutSync.remove(at: 2)
        #expect(
            ExploreSequence(withoutSync).normalized(operations).steps.map { operations[$0.operation].name } == [
                "register", "push-to-device",
            ])
    }

    /// Two devices of one person receive a push; the first reports it delivered (M15) and seen (M16), the second
    /// syncs, then lists and reports its copy (M14 `mIDs`, `drIDs`), and both sync again.
    static let history: [(String, Int, [Int])] = [
        ("register", 0, []), ("register", 1, []), ("personalize", 0, [0, 0, 0]), ("personalize", 1, [0, 0, 0]),
        ("push-to-user", 0, [0]), ("sync", 0, []), ("delivery-report", 0, [0]), ("sync", 1, []),
        ("seen-report", 0, [0]), ("sync-reporting", 1, [0, 0]), ("push-to-device", 0, []), ("sync-holding", 0, [0]),
        ("sync", 1, []), ("sync", 0, []),
    ]

    var sequence: ExploreSequence {
        ExploreSequence(Self.history.map { ExploreStep(operation: index($0.0), device: $0.1, choices: $0.2) })
    }

    func play(_ target: ReferenceImplementation) async -> SequenceOutcome {
        // The exchange timeout catches a hang, never a busy machine: beside the machine-wide tests an in-process
        // exchange of the `latency` variant waits its turn for a thread after its 150 ms, and waited 10 s there.
        let configuration = ExploreConfiguration(
            profile: .mobileMessaging, seed: 1, window: .seconds(3), exchangeTimeout: .seconds(60),
            targetDefaults: ProtocolProfile.mobileMessaging.referenceBaseURLs, targetDescription: "the reference")
        return await SequencePlayer(configuration: configuration, target: target).play(sequence).outcome
    }

    /// The same history played in lock-step on the reference and on every conforming variant (each alone and all
    /// at once): each side sends back the ids it minted, so no variant diverges (another list order, 204 for the
    /// reports, one message id shared by a push's copies, asynchronous delivery…).
    @Test(arguments: [[]] + ReferenceVariant.allCases.map { [$0] } + [ReferenceVariant.allCases])
    func theReportsPlayInLockStepOnEveryConformingVariant(_ variants: [ReferenceVariant]) async {
        #expect(sequence.normalized(operations) == sequence)
        let outcome = await play(ReferenceImplementation(variants: Set(variants)))
        #expect(outcome == .same, "\(outcome)")
    }

    /// Each fault of delivery and seen handling shows at the step that exercises it: M15 read under the wrong key
    /// refuses the report (step 7), a delivery on one device withdraws the sibling's copy (step 8), a seen report
    /// of a delivered message is refused (step 9); re-sending what a sync listed or reported is only assumed
    /// (D12) not to happen (step 10).
    @Test func theFaultsOfDeliveryAndSeenShowWhereTheHistoryExercisesThem() async {
        #expect(await play(ReferenceImplementation(faults: [.deliveryReportWrongKey])) == .diverged(step: 6))
        #expect(await play(ReferenceImplementation(faults: [.deliveryReportedForAllDevices])) == .diverged(step: 7))
        #expect(await play(ReferenceImplementation(faults: [.seenAfterDeliveryRefused])) == .diverged(step: 8))
        #expect(
            await play(ReferenceImplementation(faults: [.syncResendsKnownMessages]))
                == .assumptionNotMet(step: 9, decision: "D12"))
    }
}
