import ConformCore
import Foundation
import Testing

@Suite struct MatcherTests {
    let scope = TemplateScope(values: ["user": "ana", "n": 3])

    func paths(_ m: MatchSpec, _ v: JSONValue?) -> [String] { m.mismatches(v, in: scope).map(\.path) }

    @Test func literalComparesNumbersByValueAndRendersTemplates() throws {
        #expect(MatchSpec.literal(.int(1)).matches(.double(1.0), in: scope))
        #expect(!MatchSpec.literal(.int(1)).matches(.string("1"), in: scope))
        let t = try Template(parsing: "user-{{ user }}")
        #expect(MatchSpec.literal(.string(t)).matches("user-ana", in: scope))
        #expect(MatchSpec.literal(.string(try Template(parsing: "{{ n }}"))).matches(3, in: scope))
    }

    @Test func objectsMatchPartiallyByDefaultAndStrictlyOnRequest() {
        let m = MatchSpec.object([MatchField(key: "a", value: .literal(.int(1)))], strict: false)
        #expect(m.matches(["a": 1, "b": 2], in: scope))
        let strict = MatchSpec.object([MatchField(key: "a", value: .literal(.int(1)))], strict: true)
        let mismatches = strict.mismatches(["a": 1, "b": 2], in: scope)
        #expect(
            mismatches == [
                Mismatch(path: "$.b", expected: "(absent)", actual: "2", note: "strict match: member not expected")
            ])
        #expect(m.mismatches(["a": 1, "b": 2], in: scope, strictObjects: true).count == 1)
    }

    @Test func mismatchesAreLocatedByJSONPath() {
        let m = MatchSpec.object(
            [
                MatchField(
                    key: "requestError",
                    value: .object(
                        [
                            MatchField(
                                key: "serviceException",
                                value: .object(
                                    [MatchField(key: "messageId", value: .literal(.text("NO_REGISTRATION")))],
                                    strict: false))
                        ], strict: false))
            ], strict: false)
        let actual: JSONValue = ["requestError": ["serviceException": ["messageId": "USER_MERGE_INTERRUPTED"]]]
        #expect(
            m.mismatches(actual, in: scope) == [
                Mismatch(
                    path: "$.requestError.serviceException.messageId", expected: "\"NO_REGISTRATION\"",
                    actual: "\"USER_MERGE_INTERRUPTED\"")
            ])
        #expect(m.mismatches(["other": 1], in: scope).map(\.actual) == ["(absent)"])
    }

    @Test func arraysMatchExactlyInOrder() {
        let m = MatchSpec.array([.literal(.int(1)), .literal(.int(2))])
        #expect(m.matches([1, 2], in: scope))
        #expect(paths(m, [2, 1]) == ["$[0]", "$[1]"])
        #expect(paths(m, [1]) == ["$"])
    }

    @Test func regexSearchesStrings() throws {
        let m = MatchSpec.regex(Template(literal: "^application/json"))
        #expect(m.matches("application/json; charset=utf-8", in: scope))
        #expect(!m.matches("text/html", in: scope))
        #expect(!m.matches(1, in: scope))
        #expect(MatchSpec.regex(try Template(parsing: "^{{ user }}$")).matches("ana", in: scope))
    }

    /// Plain-text patterns take a byte comparison instead of ICU: it must decide exactly as ICU does.
    @Test func plainPatternsDecideAsICUDoes() throws {
        let patterns = [
            "^application/json", "application/json", "json", "^", "", "^APPLICATION", "charset=utf-8",
            "^text/html; charset", "a-b_c:d,e f",
        ]
        let texts = [
            "application/json", "application/json; charset=utf-8", "text/html; charset=utf-8",
            "xapplication/json", "APPLICATION/JSON", "", "a-b_c:d,e f!", "appli", "é application/json",
        ]
        for pattern in patterns {
            // A pattern ICU refuses (the empty one) fails the matcher whatever the text.
            let icu = try? NSRegularExpression(pattern: pattern)
            for text in texts {
                let expected = icu?.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
                #expect(
                    MatchSpec.regex(Template(literal: pattern)).matches(.string(text), in: scope) == expected,
                    "/\(pattern)/ against \(text.debugDescription)")
            }
        }
    }

    static let typeCases: [(String, JSONValue, Bool)] = [
        ("string", .string("x"), true), ("string", .int(1), false), ("number", .double(1.5), true),
        ("number", .int(1), true),
        ("integer", .int(2), true), ("integer", .double(2.5), false), ("boolean", .bool(true), true),
        ("object", .object(JSONObject()), true),
        ("array", .array([]), true), ("null", .null, true), ("null", .int(0), false),
    ]

    @Test(arguments: typeCases)
    func typeMatcher(name: String, value: JSONValue, expected: Bool) {
        #expect(MatchSpec.type(name).matches(value, in: scope) == expected)
    }

    @Test func anyAndAbsent() {
        #expect(MatchSpec.any.matches(JSONValue.null, in: scope))
        #expect(!MatchSpec.any.matches(nil, in: scope))
        #expect(MatchSpec.absent.matches(nil, in: scope))
        #expect(paths(.absent, 1) == ["$"])
        let m = MatchSpec.object([MatchField(key: "externalUserId", value: .absent)], strict: false)
        #expect(m.matches(["type": "LEAD"], in: scope))
        #expect(!m.matches(["externalUserId": "x"], in: scope))
    }

    @Test func oneOfAndNot() {
        let m = MatchSpec.oneOf([.literal(.int(400)), .literal(.int(403))])
        #expect(m.matches(403, in: scope))
        #expect(m.mismatches(401, in: scope).first?.expected == "one of 400, 403")
        #expect(MatchSpec.not(.literal(.int(1))).matches(2, in: scope))
        #expect(!MatchSpec.not(.literal(.int(1))).matches(1, in: scope))
    }

    @Test func numericRanges() {
        let m = MatchSpec.range(NumericRange(lower: 1, upper: 10, upperInclusive: false))
        #expect(m.matches(1, in: scope))
        #expect(m.matches(9.5, in: scope))
        #expect(!m.matches(10, in: scope))
        #expect(m.mismatches(0, in: scope).first?.expected == "a number >= 1 and < 10")
        #expect(!m.matches("5", in: scope))
    }

    @Test func arrayContainsAnyOrderAndLength() {
        let contains = MatchSpec.contains([
            .object([MatchField(key: "isPrimary", value: .literal(.bool(true)))], strict: false)
        ])
        #expect(contains.matches([["isPrimary": false], ["isPrimary": true]], in: scope))
        #expect(!contains.matches([["isPrimary": false]], in: scope))
        let anyOrder = MatchSpec.anyOrder([.literal(.text("a")), .type("string")])
        #expect(anyOrder.matches(["b", "a"], in: scope))
        #expect(!anyOrder.matches(["a"], in: scope))
        #expect(!MatchSpec.anyOrder([.literal(.text("a")), .literal(.text("a"))]).matches(["a", "b"], in: scope))
        #expect(MatchSpec.length(.literal(.int(2))).matches([1, 2], in: scope))
        #expect(MatchSpec.length(.range(NumericRange(lower: 1))).matches("x", in: scope))
        #expect(paths(.length(.literal(.int(3))), [1]) == ["$.length"])
    }

    @Test func statusClassAndAllOf() {
        #expect(MatchSpec.statusClass(4).matches(404, in: scope))
        #expect(!MatchSpec.statusClass(4).matches(500, in: scope))
        #expect(MatchSpec.allOf([.type("array"), .length(.literal(.int(1)))]).matches([1], in: scope))
    }

    @Test func literalsRenderButOperatorsDoNot() throws {
        let m = MatchSpec.object(
            [
                MatchField(key: "id", value: .literal(.string(try Template(parsing: "{{ user }}")))),
                MatchField(key: "gone", value: .absent),
            ], strict: false)
        #expect(try m.render(in: scope) == ["id": "ana"])
        #expect(throws: TemplateError.self) { try MatchSpec.regex(Template(literal: "x")).render(in: scope) }
    }
}

@Suite struct NoValueMatcherTests {
    let scope = TemplateScope(values: [:])

    @Test func absentNullAndEmptyAreAllNoValue() {
        for value: JSONValue? in [nil, .null, "", .array([]), .object(JSONObject())] {
            #expect(MatchSpec.noValue.matches(value, in: scope), "\(String(describing: value))")
        }
    }

    @Test func anyValueIsRefusedWithAClearMismatch() {
        for value: JSONValue in ["ana", 0, .bool(false), ["x"], ["a": 1]] {
            #expect(!MatchSpec.noValue.matches(value, in: scope))
        }
        let m = MatchSpec.object([MatchField(key: "externalUserId", value: .noValue)], strict: false)
        #expect(
            m.mismatches(["externalUserId": "ana"], in: scope) == [
                Mismatch(path: "$.externalUserId", expected: "no value (absent, null or empty)", actual: "\"ana\"")
            ])
    }

    @Test func noValueIsLeftOutWhenRenderedAndHasNoExample() throws {
        let m = MatchSpec.object(
            [MatchField(key: "a", value: .noValue), MatchField(key: "b", value: .literal(.int(1)))], strict: false)
        #expect(try m.render(in: scope) == ["b": 1])
        #expect(m.example(in: scope) == ["b": 1])
    }
}

@Suite struct OneOfAbsentTests {
    @Test func anAlternativeThatAcceptsAbsenceAcceptsAnAbsentMember() {
        let scope = TemplateScope(values: [:])
        let m = MatchSpec.object(
            [MatchField(key: "isPrimary", value: .oneOf([.literal(.bool(false)), .noValue]))], strict: false)
        #expect(m.matches(["isPrimary": false], in: scope))
        #expect(m.matches(["isPrimary": .null], in: scope))
        #expect(m.matches(.object(JSONObject()), in: scope))
        #expect(!m.matches(["isPrimary": true], in: scope))
        let strict = MatchSpec.object([MatchField(key: "a", value: .oneOf([.literal(.int(1))]))], strict: false)
        #expect(!strict.matches(.object(JSONObject()), in: scope))
    }
}
