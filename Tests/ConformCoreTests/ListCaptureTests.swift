import ConformCore
import ConformDiagnostics
import ConformMobileMessaging
import ConformYAML
import Foundation
import Testing

/// A capture whose path has a wildcard captures the list of every match (docs/suite-format.md, capture), and
/// `{{ each … }}` turns such a list into a report's objects: what a suite needs to send back the ids of the
/// messages a sync handed out.
@Suite struct ListCaptureTests {
    let loader = SuiteLoader(profile: .mobileMessaging)

    func suite(capture: String) -> String {
        """
        suite: s
        title: t
        steps:
          - name: sync
            request: {method: POST, url: "{{ mobile }}/mobile/5/messages"}
            capture: {\(capture)}
        """
    }

    func captures(_ capture: String) throws -> [Capture] {
        let loaded = try loader.load(bytes: Array(suite(capture: capture).utf8), file: "suite.yaml")
        guard case .exchange(let exchange) = loaded.flows[0].steps[0].action else { return [] }
        return exchange.captures
    }

    static let sync = HTTPResponse.json(
        200,
        [
            "payloads": [
                ["gcm.notification.messageId": "m1", "gcm.notification.body": "a"],
                ["gcm.notification.messageId": "m2", "gcm.notification.body": "b", "nested": ["messageId": "m3"]],
            ]
        ])

    func captured(_ capture: String, from response: HTTPResponse = sync) throws -> [String: JSONValue] {
        let exchange = Exchange(
            request: RequestSpec(method: .text("POST"), url: .text("/")), captures: try captures(capture))
        let result = exchange.capture(from: response)
        #expect(result.missing.isEmpty)
        return result.values
    }

    @Test func aWildcardPathCapturesEveryMatchInOrder() throws {
        let path = #"ids: "$.payloads[*]['gcm.notification.messageId']""#
        #expect(try captured(path) == ["ids": ["m1", "m2"]])
        #expect(try captured(#"ids: {json: "$..messageId"}"#) == ["ids": ["m3"]])
        #expect(try captured(#"first: "$.payloads[*].*""#)["first"]?.arrayValue?.count == 5)
        // A path without a wildcard still captures one value.
        #expect(try captured(#"one: "$.payloads[1]['gcm.notification.body']""#) == ["one": "b"])
    }

    /// A list capture never fails the step: no match, an empty list, a body that is not JSON all capture `[]`.
    @Test func aListCaptureThatMatchesNothingCapturesAnEmptyList() throws {
        let path = #"ids: "$.payloads[*].messageId""#
        #expect(try captured(path, from: .json(200, ["payloads": []])) == ["ids": []])
        #expect(try captured(path, from: .json(400, ["requestError": "x"])) == ["ids": []])
        let text = HTTPResponse(status: 500, headerFields: [:], body: Data("oops".utf8))
        #expect(try captured(path, from: text) == ["ids": []])
    }

    @Test func aBadListPathIsALoadErrorAtItsPlace() {
        let text = suite(capture: #"ids: "$.payloads[*""#)
        do {
            _ = try loader.load(bytes: Array(text.utf8), file: "suite.yaml")
            Issue.record("a bad path loaded")
        } catch {
            let rendered = error.diagnostics.map { $0.rendered(source: text) }.joined(separator: "\n")
            #expect(rendered.contains("suite.yaml:6:20: error: '$.payloads[*' is not a JSON path"))
            #expect(rendered.contains("a list such as '$.payloads[*].messageId'"))
        }
    }

    @Test func eachTurnsACapturedListIntoObjects() throws {
        let scope = TemplateScope(values: ["ids": ["m1", "m2"], "one": "m1"])
        let template = try Template(parsing: "{{ each ids 'messageId' timestampDelta=3 }}")
        #expect(
            try scope.render(template) == [
                ["messageId": "m1", "timestampDelta": 3], ["messageId": "m2", "timestampDelta": 3],
            ])
        #expect(try TemplateScope(values: ["ids": []]).render(template) == [])
        #expect(throws: TemplateError.self) { try scope.render(Template(parsing: "{{ each one 'messageId' }}")) }
        #expect(throws: TemplateError.self) { try scope.render(Template(parsing: "{{ each ids }}")) }
    }
}
