import Foundation

extension MatchSpec {
    /// Matches `actual` (nil when absent) and returns every mismatch, located under `path`.
    public func mismatches(
        _ actual: JSONValue?, at path: String = "$", in scope: TemplateScope, strictObjects: Bool = false
    ) -> [Mismatch] {
        var out: [Mismatch] = []
        collect(actual, path: path, scope: scope, strict: strictObjects, into: &out)
        return out
    }

    /// True when `actual` matches.
    public func matches(_ actual: JSONValue?, in scope: TemplateScope) -> Bool {
        mismatches(actual, in: scope).isEmpty
    }

    private func collect(
        _ actual: JSONValue?, path: String, scope: TemplateScope, strict: Bool, into out: inout [Mismatch]
    ) {
        func fail(_ expected: String, _ note: String? = nil) {
            out.append(Mismatch(path: path, expected: expected, actual: actual.map(show) ?? "(absent)", note: note))
        }
        if case .absent = self {
            if actual != nil { fail("(absent)") }
            return
        }
        if case .noValue = self {
            if let actual, !MatchSpec.isNoValue(actual) { fail("no value (absent, null or empty)") }
            return
        }
        if case .not(let inner) = self {
            if inner.mismatches(actual, at: path, in: scope).isEmpty { fail("not \(inner.summary(scope))") }
            return
        }
        // An alternative may accept an absent member (`{$oneOf: [false, $none]}`).
        if actual == nil, case .oneOf(let alternatives) = self,
            alternatives.contains(where: { $0.mismatches(nil, at: path, in: scope).isEmpty })
        {
            return
        }
        guard let actual else {
            fail(summary(scope))
            return
        }
        switch self {
        case .absent, .noValue, .not: return
        case .any: return
        case .literal(let template):
            do {
                let expected = try template.render(in: scope)
                if !MatchSpec.equal(expected, actual) { fail(show(expected)) }
            } catch {
                fail(template.description, "cannot render the expected value: \(error.message)")
            }
        case .object(let fields, let strictHere):
            guard case .object(let object) = actual else { return fail("an object", "got \(actual.typeName)") }
            for field in fields {
                field.value.collect(
                    object[field.key], path: MatchSpec.join(path, key: field.key), scope: scope, strict: strict,
                    into: &out)
            }
            if strictHere || strict {
                let expectedKeys = Set(fields.map(\.key))
                for key in object.keys where !expectedKeys.contains(key) {
                    out.append(
                        Mismatch(
                            path: MatchSpec.join(path, key: key), expected: "(absent)", actual: show(object[key]!),
                            note: "strict match: member not expected"))
                }
            }
        case .array(let elements):
            guard case .array(let array) = actual else { return fail("an array", "got \(actual.typeName)") }
            if array.count != elements.count {
                out.append(
                    Mismatch(path: path, expected: "\(elements.count) elements", actual: "\(array.count) elements"))
            }
            for (i, element) in elements.enumerated() where i < array.count {
                element.collect(array[i], path: "\(path)[\(i)]", scope: scope, strict: strict, into: &out)
            }
        case .regex(let template):
            guard case .string(let s) = actual else {
                return fail("a string matching /\(template.source)/", "got \(actual.typeName)")
            }
            do {
                let pattern = try scope.renderText(template)
                if try !RegexCache.matches(pattern, s) {
                    fail("a string matching /\(pattern)/")
                }
            } catch let error as TemplateError {
                fail("/\(template.source)/", "cannot render the pattern: \(error.message)")
            } catch {
                fail("/\(template.source)/", "invalid regular expression")
            }
        case .type(let name):
            if !MatchSpec.hasType(actual, name) { fail("a value of type \(name)", "got \(actual.typeName)") }
        case .oneOf(let alternatives):
            if !alternatives.contains(where: { $0.mismatches(actual, at: path, in: scope).isEmpty }) {
                fail("one of " + alternatives.map { $0.summary(scope) }.joined(separator: ", "))
            }
        case .range(let range):
            guard let x = actual.numberValue else { return fail(range.description, "got \(actual.typeName)") }
            if !range.contains(x) { fail(range.description) }
        case .statusClass(let c):
            guard case .int(let code) = actual else { return fail("\(c)xx") }
            if code / 100 != c { fail("\(c)xx") }
        case .contains(let items):
            guard case .array(let array) = actual else { return fail("an array", "got \(actual.typeName)") }
            for item in items where !array.contains(where: { item.mismatches($0, in: scope).isEmpty }) {
                out.append(
                    Mismatch(
                        path: path, expected: "an element matching \(item.summary(scope))", actual: show(actual),
                        note: "no element matches"))
            }
        case .anyOrder(let items):
            guard case .array(let array) = actual else { return fail("an array", "got \(actual.typeName)") }
            if array.count != items.count || !MatchSpec.perfectMatching(items, array, scope) {
                fail(
                    "these \(items.count) elements in any order: "
                        + items.map { $0.summary(scope) }.joined(separator: ", "))
            }
        case .length(let inner):
            let count: Int
            switch actual {
            case .array(let a): count = a.count
            case .string(let s): count = s.count
            case .object(let o): count = o.count
            default: return fail("something with a length", "got \(actual.typeName)")
            }
            for m in inner.mismatches(.int(count), at: "\(path).length", in: scope) { out.append(m) }
        case .allOf(let all):
            for m in all { m.collect(actual, path: path, scope: scope, strict: strict, into: &out) }
        }
    }

    /// `null`, `""`, `[]` and `{}`: the renderings of "no value" that D19 makes equal to leaving a member out.
    static func isNoValue(_ value: JSONValue) -> Bool {
        switch value {
        case .null: true
        case .string(let s): s.isEmpty
        case .array(let a): a.isEmpty
        case .object(let o): o.isEmpty
        default: false
        }
    }

    /// Integers and doubles compare by value; objects and arrays structurally.
    static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.int, .double), (.double, .int), (.double, .double), (.int, .int): return a.numberValue == b.numberValue
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { pair in y[pair.key].map { equal(pair.value, $0) } ?? false }
        default: return a == b
        }
    }

    static func hasType(_ value: JSONValue, _ name: String) -> Bool {
        switch name {
        case "number": value.numberValue != nil
        case "integer":
            if case .int = value { true } else if case .double(let d) = value { d == d.rounded() } else { false }
        case "string", "boolean", "object", "array", "null": value.typeName == name
        default: false
        }
    }

    /// Whether each matcher can be paired with a distinct element (augmenting paths).
    static func perfectMatching(_ matchers: [MatchSpec], _ values: [JSONValue], _ scope: TemplateScope) -> Bool {
        let fits = matchers.map { m in values.indices.filter { m.mismatches(values[$0], in: scope).isEmpty } }
        var owner = [Int?](repeating: nil, count: values.count)
        func assign(_ m: Int, _ seen: inout [Bool]) -> Bool {
            for v in fits[m] where !seen[v] {
                seen[v] = true
                if owner[v] == nil || assign(owner[v]!, &seen) {
                    owner[v] = m
                    return true
                }
            }
            return false
        }
        for m in matchers.indices {
            var seen = [Bool](repeating: false, count: values.count)
            if !assign(m, &seen) { return false }
        }
        return true
    }

    static func join(_ path: String, key: String) -> String {
        if !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) {
            return "\(path).\(key)"
        }
        return "\(path)['\(key)']"
    }

    /// A short description of what the matcher accepts, for messages.
    public func summary(_ scope: TemplateScope) -> String {
        switch self {
        case .literal(let t): (try? t.render(in: scope)).map(show) ?? "\(t)"
        case .object(let f, let strict):
            (strict ? "exactly " : "") + "an object with "
                + (f.isEmpty ? "any members" : f.map(\.key).joined(separator: ", "))
        case .array(let e): "an array of \(e.count) elements"
        case .regex(let t): "a string matching /\(t.source)/"
        case .type(let n): "a value of type \(n)"
        case .any: "any value"
        case .absent: "(absent)"
        case .noValue: "no value (absent, null or empty)"
        case .oneOf(let a): "one of " + a.map { $0.summary(scope) }.joined(separator: ", ")
        case .range(let r): r.description
        case .contains(let i): "an array containing " + i.map { $0.summary(scope) }.joined(separator: ", ")
        case .anyOrder(let i): "an array of " + i.map { $0.summary(scope) }.joined(separator: ", ") + " in any order"
        case .length(let m): "length " + m.summary(scope)
        case .not(let m): "not " + m.summary(scope)
        case .allOf(let a): a.map { $0.summary(scope) }.joined(separator: " and ")
        case .statusClass(let c): "\(c)xx"
        }
    }
}

/// JSON text of a value, shortened when very long.
func show(_ value: JSONValue) -> String {
    let text = value.serialized()
    return text.count > 240 ? String(text.prefix(237)) + "..." : text
}
