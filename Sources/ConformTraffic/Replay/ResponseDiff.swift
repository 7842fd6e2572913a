import ConformCore
import Foundation

/// One difference between an expected and an actual response.
public struct ResponseDifference: Sendable, Hashable, CustomStringConvertible {
    /// What differs; an open set.
    public struct Kind: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let status = Kind(rawValue: "status")
        public static let header = Kind(rawValue: "header")
        public static let body = Kind(rawValue: "body")
    }

    public var kind: Kind
    /// The header name or the JSON path (`$.instances[0].isPrimary`); empty for status and whole bodies.
    public var location: String
    /// The expected value, rendered (JSON text for JSON values; `(absent)` when missing).
    public var expected: String
    public var actual: String

    public var description: String {
        let at = location.isEmpty ? kind.rawValue : "\(kind.rawValue) \(location)"
        return "\(at): expected \(expected), got \(actual)"
    }

    static let absent = "(absent)"
}

/// Compares responses: status, headers (volatile ones ignored) and bodies (JSON structurally, by path).
public enum ResponseDiff {
    /// Every difference between `expected` and `actual` that `noise` does not ignore.
    public static func compare(expected: HTTPResponse, actual: HTTPResponse, noise: NoiseRules) -> [ResponseDifference]
    {
        var out: [ResponseDifference] = []
        if expected.status != actual.status {
            out.append(.init(kind: .status, location: "", expected: "\(expected.status)", actual: "\(actual.status)"))
        }
        var names: [String] = []
        for field in expected.headerFields.fields + actual.headerFields.fields
        where !names.contains(field.name.lowercased()) {
            names.append(field.name.lowercased())
        }
        for name in names where !noise.ignoresHeader(name) {
            let e = expected.headerFields.values(for: name)
            let a = actual.headerFields.values(for: name)
            if e != a {
                let display =
                    expected.headerFields.first { $0.name.lowercased() == name }?.name
                    ?? actual.headerFields.first { $0.name.lowercased() == name }?.name ?? name
                out.append(
                    .init(
                        kind: .header, location: display,
                        expected: e.isEmpty ? ResponseDifference.absent : e.joined(separator: ", "),
                        actual: a.isEmpty ? ResponseDifference.absent : a.joined(separator: ", ")))
            }
        }
        out += compare(body: expected.body, actual: actual.body, noise: noise)
        return out
    }

    static func compare(body expected: Data, actual: Data, noise: NoiseRules) -> [ResponseDifference] {
        if expected == actual { return [] }
        if let e = try? JSONValue.parse(expected), let a = try? JSONValue.parse(actual) {
            var out: [ResponseDifference] = []
            compare(e, a, at: JSONPath(), noise: noise, into: &out)
            return out
        }
        if noise.ignoresPath(JSONPath()) { return [] }
        return [.init(kind: .body, location: "", expected: render(expected), actual: render(actual))]
    }

    static func compare(
        _ e: JSONValue, _ a: JSONValue, at path: JSONPath, noise: NoiseRules, into out: inout [ResponseDifference]
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
                        .init(
                            kind: .body, location: child.description, expected: value.serialized(),
                            actual: ResponseDifference.absent))
                }
            }
            for (key, value) in ao where eo[key] == nil {
                let child = path.appending(key: key)
                if !noise.ignoresPath(child) {
                    out.append(
                        .init(
                            kind: .body, location: child.description, expected: ResponseDifference.absent,
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
                        .init(
                            kind: .body, location: child.description,
                            expected: i < ea.count ? ea[i].serialized() : ResponseDifference.absent,
                            actual: i < aa.count ? aa[i].serialized() : ResponseDifference.absent))
                }
            }
        case (.string(let es), .string(let as_)) where es != as_:
            // JSON carried inside a string (Android's GCM `internalData`): compare it as if it were nested.
            if let ej = embeddedJSON(es), let aj = embeddedJSON(as_) {
                compare(ej, aj, at: path, noise: noise, into: &out)
            } else {
                out.append(
                    .init(kind: .body, location: path.description, expected: e.serialized(), actual: a.serialized()))
            }
        default:
            if !sameScalar(e, a) {
                out.append(
                    .init(kind: .body, location: path.description, expected: e.serialized(), actual: a.serialized()))
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
