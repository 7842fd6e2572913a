import ConformCore
import Foundation

/// Compares responses: status, headers (volatile ones ignored) and bodies (JSON structurally, by path).
public enum ResponseDiff {
    /// Every difference between `expected` and `actual` that `noise` does not ignore.
    /// `parsed` holds the bodies as JSON when the caller has parsed them already (a replay learns ids from both),
    /// so they are not parsed again; `nil` parts are parsed here.
    public static func compare(
        expected: HTTPResponse, actual: HTTPResponse, noise: NoiseRules,
        parsed: (expected: JSONValue?, actual: JSONValue?) = (nil, nil)
    ) -> [Mismatch] {
        var out: [Mismatch] = []
        if expected.status != actual.status {
            out.append(Mismatch(path: "status", expected: "\(expected.status)", actual: "\(actual.status)"))
        }
        if !sameFields(expected.headerFields, actual.headerFields, noise: noise) {
            out += headerDifferences(expected.headerFields, actual.headerFields, noise: noise)
        }
        out += compare(body: expected.body, actual: actual.body, noise: noise, parsed: parsed)
        return out
    }

    /// Whether the fields `noise` does not ignore are the same on both sides, name by name (whatever its case) and
    /// value by value, in the same order: then no header differs, and most answers of a replay get here.
    static func sameFields(_ expected: HTTPFields, _ actual: HTTPFields, noise: NoiseRules) -> Bool {
        var e = expected.makeIterator()
        var a = actual.makeIterator()
        while true {
            var left = e.next()
            while let field = left, noise.ignoresHeader(field.name) { left = e.next() }
            var right = a.next()
            while let field = right, noise.ignoresHeader(field.name) { right = a.next() }
            guard let l = left, let r = right else { return left == nil && right == nil }
            guard l.value == r.value, HTTPFields.sameName(l.name, r.name) else { return false }
        }
    }

    /// The header differences of two field lists that are not the same (see ``sameFields(_:_:noise:)``).
    static func headerDifferences(_ expected: HTTPFields, _ actual: HTTPFields, noise: NoiseRules) -> [Mismatch] {
        var out: [Mismatch] = []
        // Every name once, in order of first appearance, with its values on each side: one pass over each side,
        // so a response of many fields costs as many dictionary lookups, not a scan of every field per name.
        var names: [String] = []
        var display: [String: String] = [:]
        var values: [String: (expected: [String], actual: [String])] = [:]
        for (side, fields) in [expected, actual].enumerated() {
            for field in fields {
                let name = field.name.lowercased()
                if display[name] == nil {
                    display[name] = field.name
                    names.append(name)
                }
                if side == 0 {
                    values[name, default: ([], [])].expected.append(field.value)
                } else {
                    values[name, default: ([], [])].actual.append(field.value)
                }
            }
        }
        for name in names where !noise.ignoresHeader(name) {
            guard let (e, a) = values[name], e != a else { continue }
            if name == "vary", Self.varyBehaviour(e) == Self.varyBehaviour(a) { continue }
            out.append(
                Mismatch(
                    path: "header \(display[name] ?? name)",
                    expected: e.isEmpty ? Mismatch.absent : e.joined(separator: ", "),
                    actual: a.isEmpty ? Mismatch.absent : a.joined(separator: ", ")))
        }
        return out
    }

    /// What a `Vary` header says about behaviour: the request headers it names, without `Accept-Encoding`,
    /// which only says the body's coding was negotiated (bodies are compared decoded), as a set.
    static func varyBehaviour(_ values: [String]) -> Set<String> {
        var names: Set<String> = []
        for value in values {
            for token in value.split(separator: ",") {
                let name = token.trimmingCharacters(in: .whitespaces).lowercased()
                if !name.isEmpty && name != "accept-encoding" { names.insert(name) }
            }
        }
        return names
    }

    static func compare(
        body expected: Data, actual: Data, noise: NoiseRules,
        parsed: (expected: JSONValue?, actual: JSONValue?) = (nil, nil)
    ) -> [Mismatch] {
        if expected == actual { return [] }
        if let e = parsed.expected ?? JSONValue.parsedBody(expected),
            let a = parsed.actual ?? JSONValue.parsedBody(actual)
        {
            var out: [Mismatch] = []
            compare(e, a, at: JSONPath(), noise: noise, into: &out)
            return out
        }
        if noise.ignoresPath(JSONPath()) { return [] }
        return [Mismatch(path: "body", expected: render(expected), actual: render(actual))]
    }

    static func compare(
        _ e: JSONValue, _ a: JSONValue, at path: JSONPath, noise: NoiseRules, into out: inout [Mismatch]
    ) {
        if noise.ignoresPath(path) { return }
        switch (e, a) {
        case (.object(let eo), .object(let ao)):
            for (key, value) in eo {
                let child = path.appending(key: key)
                if let other = ao[key] {
                    compare(value, other, at: child, noise: noise, into: &out)
                } else if !noise.ignoresPath(child) {
                    out.append(
                        Mismatch(
                            path: child.description, expected: value.serialized(),
                            actual: Mismatch.absent))
                }
            }
            for (key, value) in ao where eo[key] == nil {
                let child = path.appending(key: key)
                if !noise.ignoresPath(child) {
                    out.append(
                        Mismatch(
                            path: child.description, expected: Mismatch.absent,
                            actual: value.serialized()))
                }
            }
        case (.array(let ea), .array(let aa)):
            for i in 0..<max(ea.count, aa.count) {
                let child = path.appending(index: i)
                if i < ea.count, i < aa.count {
                    compare(ea[i], aa[i], at: child, noise: noise, into: &out)
                } else if !noise.ignoresPath(child) {
                    out.append(
                        Mismatch(
                            path: child.description,
                            expected: i < ea.count ? ea[i].serialized() : Mismatch.absent,
                            actual: i < aa.count ? aa[i].serialized() : Mismatch.absent))
                }
            }
        case (.string(let es), .string(let as_)) where es != as_:
            // JSON carried inside a string (Android's GCM `internalData`): compare it as if it were nested.
            if let ej = embeddedJSON(es), let aj = embeddedJSON(as_) {
                compare(ej, aj, at: path, noise: noise, into: &out)
            } else {
                out.append(
                    Mismatch(path: path.description, expected: e.serialized(), actual: a.serialized()))
            }
        default:
            if !sameScalar(e, a) {
                out.append(
                    Mismatch(path: path.description, expected: e.serialized(), actual: a.serialized()))
            }
        }
    }

    private static func embeddedJSON(_ text: String) -> JSONValue? {
        guard let first = text.first, first == "{" || first == "[", let value = try? JSONValue.parse(text) else {
            return nil
        }
        return value
    }

    private static func sameScalar(_ e: JSONValue, _ a: JSONValue) -> Bool {
        if e == a { return true }
        if let x = e.numberValue, let y = a.numberValue { return x == y }
        return false
    }

    private static func render(_ body: Data) -> String {
        guard !body.isEmpty else { return "(empty)" }
        if let text = String(validating: body, as: UTF8.self) {
            return text.count > 200 ? String(text.prefix(200)) + "…" : text
        }
        return "(\(body.count) bytes of binary)"
    }
}
