import ConformCore
import Foundation
import Testing

@Suite struct ExchangeTests {
    @Test func requestsRenderURLQueryHeadersAndJSON() throws {
        let scope = TemplateScope(values: ["mobile": "http://m", "reg": "r 1", "code": "app"])
        let spec = RequestSpec(
            method: .text("POST"),
            url: .string(try Template(parsing: "{{ mobile }}/mobile/1/appinstance/{{ reg }}/personalize")),
            query: [("forceDepersonalize", .literal(.bool(true))), ("keepAsLead", .literal(.text("1")))],
            headers: [("Authorization", .literal(.string(try Template(parsing: "App {{ code }}"))))],
            body: .json(
                .object(
                    [
                        MatchField(
                            key: "userIdentity",
                            value: .object(
                                [MatchField(key: "externalUserId", value: .literal(.text("u")))], strict: false))
                    ], strict: false))
        )
        let request = try spec.render(in: scope)
        #expect(request.url == "http://m/mobile/1/appinstance/r 1/personalize?forceDepersonalize=true&keepAsLead=1")
        #expect(request.headerFields["authorization"] == "App app")
        #expect(request.headerFields["Content-Type"] == "application/json")
        #expect(String(decoding: request.body, as: UTF8.self) == #"{"userIdentity":{"externalUserId":"u"}}"#)
    }

    @Test func responsesAreCheckedAndCaptured() {
        let response = HTTPResponse.json(
            200, ["pushRegId": "abc", "instances": [["pushRegId": "abc"]]], headers: ["X-Trace": "t1"])
        let exchange = Exchange(
            request: RequestSpec(method: .text("GET"), url: .text("/")),
            checks: [
                CheckGroup(
                    severity: .must,
                    expectation: ResponseSpec(
                        status: .literal(.int(200)), headers: [("Content-Type", .regex(Template(literal: "json")))],
                        body: .json(.object([MatchField(key: "pushRegId", value: .type("string"))], strict: false)))),
                CheckGroup(severity: .assumed, decision: "D1", expectation: ResponseSpec(status: .literal(.int(201)))),
            ],
            captures: [
                Capture(name: "reg", source: .json(JSONPath(parsing: "$.instances[0].pushRegId")!)),
                Capture(name: "trace", source: .header("x-trace")),
                Capture(name: "missing", source: .json(JSONPath(parsing: "$.nope")!)),
            ]
        )
        let failures = exchange.failures(for: response, in: TemplateScope())
        #expect(
            failures == [
                CheckFailure(
                    severity: .assumed, decision: "D1",
                    mismatches: [Mismatch(path: "status", expected: "201", actual: "200")])
            ])
        let captured = exchange.capture(from: response)
        #expect(captured.values == ["reg": "abc", "trace": "t1"])
        #expect(captured.missing.map(\.path) == ["$.nope"])
    }

    @Test func invalidJSONBodiesAreMismatchesNotCrashes() {
        let response = HTTPResponse(
            status: 200, headerFields: ["Content-Type": "application/json"], body: Data("{\"a\":".utf8))
        let spec = ResponseSpec(body: .json(.object([], strict: false)))
        let m = spec.mismatches(response, in: TemplateScope())
        #expect(m.count == 1)
        #expect(m[0].path == "body")
        #expect(m[0].note?.hasPrefix("invalid JSON at line 1, column 6") == true)
    }

    @Test func theSameDescriptionMatchesRequestsAndRendersResponses() throws {
        let scope = TemplateScope(values: ["reg": "r1"])
        let spec = RequestSpec(
            method: .text("PATCH"), url: .string(try Template(parsing: "http://x/mobile/1/appinstance/{{ reg }}")),
            query: [("rt", .oneOf([.literal(.text("0")), .literal(.text("false"))]))],
            headers: [("Authorization", .regex(Template(literal: "^App ")))],
            body: .json(.object([MatchField(key: "isPrimary", value: .literal(.bool(true)))], strict: false))
        )
        let android = HTTPRequest(
            method: .post, url: "/mobile/1/appinstance/r1?rt=false",
            headerFields: ["X-HTTP-Method-Override": "PATCH", "Authorization": "App c"],
            body: Data(#"{"isPrimary":true}"#.utf8))
        #expect(spec.mismatches(android, in: scope).isEmpty)
        let wrong = HTTPRequest(method: .put, url: "/mobile/1/appinstance/r2", headerFields: [:], body: Data("{}".utf8))
        #expect(
            spec.mismatches(wrong, in: scope).map(\.path) == [
                "method", "path", "query rt", "header Authorization", "$.isPrimary",
            ])
        let response = try ResponseSpec(
            status: .literal(.int(201)),
            body: .json(.object([MatchField(key: "ok", value: .literal(.bool(true)))], strict: false))
        ).render(in: scope)
        #expect(response.status == 201)
        #expect(response.headerFields["Content-Length"] == "11")
    }
}

/// How long an exchange took is not what it answered: responses compare and hash without their timings.
@Suite struct ResponseEqualityTests {
    @Test func timingIsOutsideEqualityAndHashing() {
        let body = Data("{}".utf8)
        let fast = HTTPResponse(
            status: 200, headerFields: ["A": "1"], body: body, timing: HTTPTiming(total: 0.001, reusedConnection: true))
        let slow = HTTPResponse(status: 200, headerFields: ["A": "1"], body: body, timing: HTTPTiming(total: 9))
        let untimed = HTTPResponse(status: 200, headerFields: ["A": "1"], body: body)
        #expect(fast == slow)
        #expect(fast == untimed)
        #expect(Set([fast, slow, untimed]).count == 1)
        #expect(fast != HTTPResponse(status: 201, headerFields: ["A": "1"], body: body))
        #expect(fast != HTTPResponse(status: 200, headerFields: ["A": "2"], body: body))
        #expect(fast != HTTPResponse(status: 200, headerFields: ["A": "1"], body: Data("[]".utf8)))
        // The timing itself is kept.
        #expect(fast.timing?.reusedConnection == true)
    }
}
