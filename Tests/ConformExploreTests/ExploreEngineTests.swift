import ConformCore
import ConformMobileMessaging
import Foundation
import Testing

@testable import ConformExplore

/// The explorer's engine on Mobile Messaging's operations: sequences stay valid when steps go, the same seed draws
/// the same sequences, the exhaustive walk plays each sequence once up to renaming, and the reference's answers
/// become expectations under the profile's rules.
@Suite struct ExploreEngineTests {
    let operations = MobileMessaging.exploration.operations

    func index(_ name: String) -> Int { operations.firstIndex { $0.name == name }! }

    @Test func aSequenceWithoutARegistrationLosesTheStepsOfThatDevice() {
        let sequence = ExploreSequence([
            ExploreStep(operation: index("register"), device: 0),
            ExploreStep(operation: index("register"), device: 1),
            ExploreStep(operation: index("personalize"), device: 0, person: 1, choices: [0, 0, 0]),
            ExploreStep(operation: index("personalize"), device: 1, person: 1, choices: [0, 0, 0]),
            ExploreStep(operation: index("delete"), device: 1),
            ExploreStep(operation: index("sync"), device: 1),
        ])
        var withoutFirst = sequence.steps
        withoutFirst.remove(at: 0)
        let normalized = ExploreSequence(withoutFirst).normalized(operations)
        // Device 1 is renumbered 0, person 1 becomes the first person, and only a read names a deleted device.
        #expect(
            normalized.steps == [
                ExploreStep(operation: index("register"), device: 0),
                ExploreStep(operation: index("personalize"), device: 0, person: 0, choices: [0, 0, 0]),
                ExploreStep(operation: index("delete"), device: 0),
                ExploreStep(operation: index("sync"), device: 0),
            ])
        let changeAfterDelete = ExploreSequence([
            ExploreStep(operation: index("register"), device: 0), ExploreStep(operation: index("delete"), device: 0),
            ExploreStep(operation: index("depersonalize"), device: 0),
        ])
        #expect(changeAfterDelete.normalized(operations).steps.count == 2)
    }

    @Test func theSameSeedDrawsTheSameSequences() {
        let generator = SequenceGenerator(operations: operations, devices: 3, persons: 2, maxLength: 12)
        var a = SeededRandom(seed: 42)
        var b = SeededRandom(seed: 42)
        var c = SeededRandom(seed: 43)
        let first = (0..<20).map { _ in generator.draw(&a) }
        #expect(first == (0..<20).map { _ in generator.draw(&b) })
        #expect(first != (0..<20).map { _ in generator.draw(&c) })
        for sequence in first {
            #expect(sequence.normalized(operations) == sequence, "a drawn sequence is valid as drawn")
            #expect((6...12).contains(sequence.steps.count))
        }
    }

    @Test func theExhaustiveWalkPlaysEachSequenceOnceUpToRenaming() {
        let generator = SequenceGenerator(operations: operations, devices: 2, persons: 2, maxLength: 12)
        var walk = ExhaustiveWalk(generator: generator, depth: 2)
        var seen: [ExploreSequence] = []
        while let next = walk.next() { seen.append(next) }
        #expect(Set(seen).count == seen.count)
        #expect(seen.allSatisfy { $0.steps.count == 2 })
        // A first step names the first person only: the second is the same sequence with the persons swapped.
        #expect(seen.allSatisfy { $0.steps[0].person == 0 })
        // Register first: 106 steps can follow (a person-naming step names p1 only, no person being used yet;
        // personalize alone has 64 spellings of its three query booleans); one of the eight steps that name only a
        // person or nothing (six pushes, a person read, an empty v3 push) first: 16 each (a registration, the empty
        // v3 push, or one of the other six for p1 or p2).
        #expect(seen.count == 106 + 8 * 16)
    }

    @Test func aRefusalADecisionOnlyAssumesIsAnAssumption() {
        let builder = ExpectationBuilder(exploration: MobileMessaging.exploration, names: [:], textsSent: [])
        let body = #"{"requestError":{"serviceException":{"messageId":"USER_MERGE_INTERRUPTED","text":"x"}}}"#
        let expectation = builder.expectation(
            for: operations[index("personalize")], response: HTTPResponse(status: 400, body: Data(body.utf8)))
        #expect(
            expectation.lines() == [
                "    expect:",
                "      status: {$lt: 500}",
                "    assume:",
                "      D2:",
                "        - {status: 4xx}",
                "        - {json: {requestError: {serviceException: {messageId: \"USER_MERGE_INTERRUPTED\"}}}}",
            ])
    }

    @Test func aSyncExpectsThePushesThatArrivedAndNoOther() {
        let builder = ExpectationBuilder(
            exploration: MobileMessaging.exploration, names: ["t1": "push one", "t2": "push two"],
            textsSent: ["t1", "t2"])
        let body = #"{"payloads":[{"gcm.notification.body":"push two"}]}"#
        let expectation = builder.expectation(
            for: operations[index("sync")], response: HTTPResponse(status: 200, body: Data(body.utf8)))
        #expect(
            expectation.lines(interval: "50ms") == [
                "    expect:",
                "      status: 2xx",
                "      json: {payloads: {$not: {$contains: [{\"gcm.notification.body\": \"{{ t1 }}\"}]}}}",
                "    until: {json: {payloads: {$contains: [{\"gcm.notification.body\": \"{{ t2 }}\"}]}}}",
                "    eventually: {timeout: \"{{ asyncWindow }}\", interval: 50ms}",
            ])
    }

    @Test func aClearPrimaryFlagIsAssumedAndASetOneMust() {
        let builder = ExpectationBuilder(
            exploration: MobileMessaging.exploration, names: ["d1": "id-1", "d2": "id-2", "p1": "user"], textsSent: [])
        let body = #"""
            {"externalUserId":"user","instances":[{"pushRegId":"id-1","isPrimary":true},{"pushRegId":"id-2","isPrimary":false}]}
            """#
        let lines = builder.expectation(
            for: operations[index("read-user")], response: HTTPResponse(status: 200, body: Data(body.utf8))
        ).lines()
        #expect(
            lines.contains(
                #"      json: {externalUserId: "{{ p1 }}", firstName: $none, type: $none, customAttributes: {$oneOf: [$none, {explorePlan: $none}]}, instances: {$anyOrder: [{pushRegId: "{{ d1 }}"}, {pushRegId: "{{ d2 }}"}], $contains: [{pushRegId: "{{ d1 }}", isPrimary: true}]}}"#
            ))
        #expect(
            lines.contains(
                #"        - {json: {instances: {$contains: [{pushRegId: "{{ d2 }}", isPrimary: {$oneOf: [false, $none]}}]}}}"#
            ))
    }

    /// A push the reference kept away from the device is a MUST, unless a decision only assumes it stays away:
    /// withdrawn when the device changed person (D12), primary-only to a person without a primary device (D7).
    @Test func aPushKeptAwayOnlyByAnAssumedDecisionIsAnAssumption() {
        var builder = ExpectationBuilder(
            exploration: MobileMessaging.exploration, names: ["d1": "id-1", "t1": "one", "t2": "two", "t3": "three"],
            textsSent: ["t1", "t2", "t3"])
        var withdrawn = PushFacts()
        withdrawn.queuedOn = ["id-1"]
        var noPrimary = PushFacts()
        noPrimary.primaryOnly = true
        builder.pushes = ["t1": withdrawn, "t2": noPrimary, "t3": PushFacts()]
        builder.device = "id-1"
        let lines = builder.expectation(
            for: operations[index("sync")], response: HTTPResponse(status: 200, body: Data(#"{"payloads":[]}"#.utf8))
        ).lines(interval: "50ms")
        #expect(
            lines == [
                "    expect:",
                "      status: 2xx",
                "      json: {payloads: {$not: {$contains: [{\"gcm.notification.body\": \"{{ t3 }}\"}]}}}",
                "    assume:",
                "      D12:",
                "        - {json: {payloads: {$not: {$contains: [{\"gcm.notification.body\": \"{{ t1 }}\"}]}}}}",
                "      D7:",
                "        - {json: {payloads: {$not: {$contains: [{\"gcm.notification.body\": \"{{ t2 }}\"}]}}}}",
                "    eventually: {timeout: \"{{ asyncWindow }}\", interval: 50ms}",
            ])
    }
}
