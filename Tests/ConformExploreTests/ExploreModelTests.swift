import ConformCore
import ConformMobileMessaging
import Foundation
import Testing

@testable import ConformExplore

/// The generator's abstract model on Mobile Messaging's operations: it follows what a sequence did (owners, primary
/// flags, user data, pushes not synced), favours the steps that use it, and leaves every operation and parameter
/// value drawable.
@Suite struct ExploreModelTests {
    let operations = MobileMessaging.exploration.operations

    func index(_ name: String) -> Int { operations.firstIndex { $0.name == name }! }

    /// The choices of a step of `name` with each named parameter at the given value, the others at their first.
    func step(
        _ name: String, device: Int = 0, other: Int = 0, person: Int = 0, _ values: [String: String] = [:]
    ) -> ExploreStep {
        let op = operations[index(name)]
        let choices = op.parameters.map { parameter in
            values[parameter.name].flatMap { parameter.values.firstIndex(of: $0) } ?? 0
        }
        return ExploreStep(operation: index(name), device: device, other: other, person: person, choices: choices)
    }

    func model(_ steps: [ExploreStep]) -> ExploreModel {
        var model = ExploreModel()
        for step in steps { model.apply(step, operations[step.operation]) }
        return model
    }

    func uses(_ model: ExploreModel, _ step: ExploreStep) -> Int { model.uses(step, operations[step.operation]) }

    /// User data set, then a logout: the logout of that device uses the data, and then a read of its user does,
    /// not a read of its flags only.
    @Test func dataLeftBehindByALogoutInvitesAReadOfTheDevicesUser() {
        let personalized = [step("register"), step("personalize", person: 0)]
        let withData = model(personalized + [step("update-user")])
        #expect(uses(model(personalized), step("depersonalize")) == 0)
        #expect(uses(withData, step("depersonalize")) == 2)
        let loggedOut = model(personalized + [step("update-user"), step("depersonalize")])
        #expect(loggedOut.devices[0].person == nil && loggedOut.devices[0].leftData)
        #expect(uses(loggedOut, step("read-user")) == 3)
        #expect(uses(loggedOut, step("read-installation")) == 1)
        // Once read, what it showed is used up.
        let read = model(personalized + [step("update-user"), step("depersonalize"), step("read-user")])
        #expect(uses(read, step("read-user")) == 0)
    }

    /// A person with a primary device and a sibling that never was primary: a primary-only push to it uses that
    /// (with the flag set), and a sync of the sibling it kept away from uses the push.
    @Test func aPrimaryNextToANeverPrimarySiblingInvitesAPrimaryOnlyPushAndASyncOfTheSibling() {
        let siblings = [
            step("register", device: 0), step("register", device: 1),
            step("personalize", device: 0, person: 0, ["primary": "true"]),
        ]
        // A second device for the person is a step that builds on what the sequence did.
        #expect(uses(model(siblings), step("personalize", device: 1, person: 0)) == 1)
        let built = model(siblings + [step("personalize", device: 1, person: 0)])
        #expect(built.devices.map(\.primary) == [true, false])
        #expect(uses(built, step("push-to-user", person: 0, ["onlyPrimary": "true"])) == 4)
        #expect(uses(built, step("push-v3-to-user", person: 0, ["onlyPrimary": "true"])) == 4)
        #expect(uses(built, step("push-to-user", person: 0, ["onlyPrimary": "false"])) == 2)
        #expect(uses(built, step("push-to-user", person: 1, ["onlyPrimary": "true"])) == 0)
        let pushed = model(
            siblings + [
                step("personalize", device: 1, person: 0), step("push-to-user", person: 0, ["onlyPrimary": "true"]),
            ])
        #expect(pushed.devices.map(\.pending) == [1, 0])
        #expect(pushed.devices.map(\.keptAway) == [0, 1])
        #expect(uses(pushed, step("sync", device: 1)) == 2)
        #expect(uses(pushed, step("sync", device: 0)) == 1)
    }

    /// A device of another person switches only with force; another installation is acted on only when it shares
    /// the caller's person (as the profile's effects say).
    @Test func theModelFollowsTheProfilesEffects() {
        let start = [
            step("register", device: 0), step("register", device: 1),
            step("personalize", device: 0, person: 0), step("personalize", device: 1, person: 1),
        ]
        #expect(model(start + [step("personalize", device: 0, person: 1)]).devices[0].person == 0)
        #expect(model(start + [step("personalize", device: 0, person: 1, ["force": "1"])]).devices[0].person == 1)
        #expect(model(start + [step("depersonalize-other", device: 0, other: 1)]).devices[1].person == 1)
        let same = start + [step("personalize", device: 1, person: 0, ["force": "true"])]
        #expect(model(same + [step("depersonalize-other", device: 0, other: 1)]).devices[1].person == nil)
        let primary = model(same + [step("set-other-primary", device: 0, other: 1, ["primary": "true"])])
        #expect(primary.devices.map(\.everPrimary) == [false, true])
    }

    /// Every operation, and every value of every parameter, is still drawn from a seed's first sequences: the
    /// model only makes steps more likely, never impossible.
    @Test func everyOperationAndValueStaysDrawable() {
        let generator = SequenceGenerator(operations: operations, devices: 3, persons: 2, maxLength: 12)
        var random = SeededRandom(seed: 11)
        var values: Set<[String]> = []
        for _ in 0..<1000 {
            for step in generator.draw(&random).steps {
                let op = operations[step.operation]
                values.insert([op.name])
                for (parameter, choice) in zip(op.parameters, step.choices) {
                    // A captured parameter's value is one of the installation's captures (ExploreReportsTests).
                    values.insert([op.name, parameter.name, parameter.captured ?? parameter.values[choice]])
                }
            }
        }
        var every: Set<[String]> = []
        for op in operations {
            every.insert([op.name])
            for parameter in op.parameters {
                for value in parameter.captured.map({ [$0] }) ?? parameter.values {
                    every.insert([op.name, parameter.name, value])
                }
            }
        }
        #expect(
            every.subtracting(values).isEmpty,
            "never drawn: \(every.subtracting(values).sorted { $0.lexicographicallyPrecedes($1) })")
    }
}
