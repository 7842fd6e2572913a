import ConformCore
import ConformMobileMessaging
import ConformReference
import Foundation
import Testing

@testable import ConformExplore

/// The probes of Mobile Messaging's exploration and the rules they are judged by: what a refusal shows beyond its
/// status class (its media type and length, D15; another API version's envelope), a refusal whose decision depends
/// on the call, a header that must be an absolute URL when it is sent, a value read from a list's first element,
/// and the application mode an operation is drawn in.
@Suite struct ExploreProbeTests {
    let operations = MobileMessaging.exploration.operations
    let builder = ExpectationBuilder(exploration: MobileMessaging.exploration, names: [:], textsSent: [])

    func op(_ name: String) -> ExploreOperation { operations.first { $0.name == name }! }

    func refusal(_ status: Int, _ body: String, headers: HTTPFields = [:]) -> HTTPResponse {
        HTTPResponse(status: HTTPStatus(rawValue: status), headerFields: headers, body: Data(body.utf8))
    }

    /// An empty identity is refused under a MUST: the class, the code D1 makes a MUST, and a JSON body with its
    /// length (D15), whichever way the reference wrote the headers.
    @Test func aRefusalUnderAMustShowsItsCodeMediaTypeAndLength() {
        let body = #"{"requestError":{"serviceException":{"messageId":"USER_IDENTITY_INVALID","text":"x"}}}"#
        let response = refusal(
            400, body, headers: ["Content-Type": "application/json; charset=utf-8", "Content-Length": "85"])
        #expect(
            builder.expectation(for: op("personalize-without-identity"), response: response).lines() == [
                "    expect:",
                "      status: 4xx",
                "      json: {requestError: {serviceException: {messageId: \"USER_IDENTITY_INVALID\"}}}",
                "      headers: {\"Content-Type\": {$regex: \"^application/json\"}, "
                    + "\"Content-Length\": {$regex: \"^[0-9]+$\"}}",
            ])
    }

    /// A conflict of a PATCH of the externalUserId rests on D1 (when it is refused is inferred), not on D2 as a
    /// login's does; an assumed refusal shows nothing more, since the target may answer 2xx instead.
    @Test func aConflictOfAPatchRestsOnItsOwnDecision() {
        let body = #"{"requestError":{"serviceException":{"messageId":"USER_MERGE_INTERRUPTED","text":"x"}}}"#
        let response = refusal(400, body, headers: ["Content-Type": "application/json", "Content-Length": "86"])
        let lines = builder.expectation(for: op("update-user-identity"), response: response).lines()
        #expect(lines.contains("      D1:"))
        #expect(!lines.contains("      D2:"))
        #expect(!lines.contains { $0.contains("headers") })
    }

    /// An empty v3 push is refused in v3's envelope: its `errorCode` is a MUST beside the class.
    @Test func anEmptyV3PushShowsItsEnvelope() {
        let response = refusal(
            400, #"{"errorCode":"E400","description":"Bad request","action":"x","violations":[]}"#,
            headers: ["Content-Type": "application/json", "Content-Length": "70"])
        let lines = builder.expectation(for: op("push-v3-empty"), response: response).lines()
        #expect(lines.contains("      json: {errorCode: \"E400\"}"))
    }

    /// `New-Base-URL`: absent on the reference, the target may leave it out or send an absolute URL; sent by the
    /// reference, the target must send an absolute one too.
    @Test func aHeaderMustMatchWhenSentAndMayBeAbsentWhereTheReferenceLeavesItOut() {
        let absent = builder.expectation(for: op("base-url"), response: refusal(200, #"{"baseUrl":"http://a"}"#))
        #expect(
            absent.lines().contains(
                "      headers: {\"New-Base-URL\": {$oneOf: [$absent, {$regex: \"^https?://[^/]+\"}]}}"))
        let sent = builder.expectation(
            for: op("base-url"),
            response: refusal(200, #"{"baseUrl":"http://a"}"#, headers: ["New-Base-URL": "https://b.example"]))
        #expect(sent.lines().contains("      headers: {\"New-Base-URL\": {$regex: \"^https?://[^/]+\"}}"))
        #expect(ExpectationBuilder.matches("https://b.example", "^https?://[^/]+"))
        #expect(!ExpectationBuilder.matches("/mobile", "^https?://[^/]+"))
    }

    /// The group of a v2 push's status is read from its first bulk; the target's bulks must hold one like it, and
    /// only D7 assumes which group a push that reaches no device reports.
    @Test func thePushStatusGroupIsReadFromTheFirstBulk() throws {
        let body = #"{"bulks":[{"bulkId":"b","status":{"groupId":2,"groupName":"UNDELIVERABLE","id":66}}]}"#
        let lines = builder.expectation(for: op("push-to-user-status"), response: refusal(200, body)).lines()
        #expect(lines.contains("      D7:"))
        #expect(lines.contains("        - {json: {bulks: {$contains: [{status: {groupName: \"UNDELIVERABLE\"}}]}}}"))
        let parsed = try JSONValue.parse(Data(body.utf8))
        #expect(builder.value(at: "$.bulks[0].status.groupName", in: parsed)?.stringValue == "UNDELIVERABLE")
        #expect(builder.value(at: "$.bulks[1].status", in: parsed) == nil)
    }

    /// The JWT probes are drawn only in the JWT mode; every other operation in every mode.
    @Test func anOperationIsDrawnOnlyInItsApplicationModes() {
        func names(_ mode: String) -> Set<String> {
            let configuration = ExploreConfiguration(
                profile: .mobileMessaging, applicationMode: mode, seed: 1,
                targetDefaults: ProtocolProfile.mobileMessaging.referenceBaseURLs, targetDescription: "the reference")
            let explorer = Explorer(configuration: configuration, target: ReferenceImplementation())
            return Set(explorer.configuration.profile.exploration.operations.map(\.name))
        }
        let jwtOnly: Set = [
            "read-user-forged-token", "read-user-as-other", "read-user-wrong-application", "read-user-unknown-key-id",
            "read-user-with-app-code",
        ]
        #expect(names("all").isDisjoint(with: jwtOnly))
        #expect(names("restricted").isDisjoint(with: jwtOnly))
        #expect(jwtOnly.isSubset(of: names("jwt")))
        #expect(names("jwt").subtracting(jwtOnly) == names("all"))
        #expect(names("jwt").count == operations.count)
    }

    /// A request's placeholders are filled in one pass: a known `<name>` by its value (not filled again), anything
    /// else between `<` and `>` left as it is.
    @Test func placeholdersAreFilledOnceInOnePass() {
        let values = ["device": "{{ d1 }}", "held": "<device>", "sub": "p1"]
        #expect(
            SuiteWriter.expand("url: /<device>/x?<held>&<unknown> a<b <sub>>", values)
                == "url: /{{ d1 }}/x?<device>&<unknown> a<b p1>")
        #expect(SuiteWriter.expand("<", values) == "<")
        #expect(SuiteWriter.expand("<sub", values) == "<sub")
    }
}
