import Foundation

/// A JSON path that may hold wildcards: `$.bulks[*].bulkId`, `$.messages[*].*`, `$..email` (any depth).
public struct JSONPathPattern: Sendable, Hashable, CustomStringConvertible {
    /// One step of a pattern.
    public enum Step: Sendable, Hashable {
        case key(String)
        case index(Int)
        /// `[*]`: any array element.
        case anyIndex
        /// `.*`: any object member.
        case anyKey
        /// `..name`: a member `name` at any depth below.
        case descendant(String)
    }

    public var steps: [Step]
    public let description: String

    /// Parses a pattern; `nil` when it is not one.
    public init?(_ text: String) {
        let trimmed = Substring(text.trimmingCharacters(in: .whitespaces))
        guard trimmed.hasPrefix("$"), let steps = Self.steps(of: trimmed.dropFirst(), wildcards: true) else {
            return nil
        }
        description = String(trimmed)
        self.steps = steps
    }

    /// The steps of a path after its `$`: `.key`, `['key']`, `["key"]`, `[0]`; with `wildcards`, also `.*`, `[*]`
    /// and `..key`, which otherwise are a key named `*` and malformed. `bareFirstKey` reads `a.b` as `$.a.b`.
    /// `nil` when the text is not a path. The one path syntax of suites, noise rules and redaction policies.
    static func steps(of text: Substring, wildcards: Bool, bareFirstKey: Bool = false) -> [Step]? {
        var rest = text
        var steps: [Step] = []
        func key(after start: Substring.Index) -> Substring {
            rest = rest[start...]
            let end = rest.firstIndex { $0 == "." || $0 == "[" } ?? rest.endIndex
            defer { rest = rest[end...] }
            return rest[..<end]
        }
        while let first = rest.first {
            if wildcards, rest.hasPrefix("..") {
                let name = key(after: rest.index(rest.startIndex, offsetBy: 2))
                guard !name.isEmpty else { return nil }
                steps.append(.descendant(String(name)))
            } else if first == "." {
                let name = key(after: rest.index(after: rest.startIndex))
                guard !name.isEmpty else { return nil }
                steps.append(wildcards && name == "*" ? .anyKey : .key(String(name)))
            } else if first == "[" {
                guard let close = rest.firstIndex(of: "]") else { return nil }
                let inner = rest[rest.index(after: rest.startIndex)..<close]
                if wildcards, inner == "*" {
                    steps.append(.anyIndex)
                } else if let i = Int(inner) {
                    steps.append(.index(i))
                } else if inner.count >= 2, let q = inner.first, q == "'" || q == "\"", inner.last == q {
                    steps.append(.key(String(inner.dropFirst().dropLast())))
                } else {
                    return nil
                }
                rest = rest[rest.index(after: close)...]
            } else if bareFirstKey, steps.isEmpty {
                steps.append(.key(String(key(after: rest.startIndex))))
            } else {
                return nil
            }
        }
        return steps
    }

    /// Whether a concrete path matches this pattern.
    public func matches(_ path: JSONPath) -> Bool {
        Self.match(steps[...], path.components[...])
    }

    private static func match(_ steps: ArraySlice<Step>, _ parts: ArraySlice<JSONPath.Component>) -> Bool {
        guard let step = steps.first else { return parts.isEmpty }
        if case .descendant(let name) = step {
            var rest = parts
            while let part = rest.first {
                rest = rest.dropFirst()
                if case .key(let k) = part, k == name, match(steps.dropFirst(), rest) { return true }
            }
            return false
        }
        guard let part = parts.first else { return false }
        let ok: Bool
        switch (step, part) {
        case (.key(let a), .key(let b)): ok = a == b
        case (.index(let a), .index(let b)): ok = a == b
        case (.anyIndex, .index): ok = true
        case (.anyKey, .key): ok = true
        default: ok = false
        }
        return ok && match(steps.dropFirst(), parts.dropFirst())
    }
}

extension JSONPathPattern {
    /// Whether the pattern has a wildcard (`[*]`, `.*`, `..name`): it may match any number of values.
    public var hasWildcard: Bool {
        steps.contains { step in
            switch step {
            case .key, .index: false
            case .anyIndex, .anyKey, .descendant: true
            }
        }
    }

    /// Every value of `root` the pattern matches, in the order of the document (a member before what it holds,
    /// an element before the next one); none when nothing matches.
    public func values(in root: JSONValue) -> [JSONValue] {
        var out: [JSONValue] = []
        Self.collect(steps[...], from: root, into: &out)
        return out
    }

    private static func collect(_ steps: ArraySlice<Step>, from node: JSONValue, into out: inout [JSONValue]) {
        guard let step = steps.first else {
            out.append(node)
            return
        }
        let rest = steps.dropFirst()
        switch step {
        case .key(let key):
            if let value = node[key] { collect(rest, from: value, into: &out) }
        case .index(let index):
            if let value = node[path: JSONPath([.index(index)])] { collect(rest, from: value, into: &out) }
        case .anyIndex:
            for element in node.arrayValue ?? [] { collect(rest, from: element, into: &out) }
        case .anyKey:
            if case .object(let members) = node {
                for (_, value) in members { collect(rest, from: value, into: &out) }
            }
        case .descendant(let name):
            // A member `name` of this value, then of every value below it.
            if case .object(let members) = node {
                if let value = node[name] { collect(rest, from: value, into: &out) }
                for (_, value) in members { collect(steps, from: value, into: &out) }
            } else if let elements = node.arrayValue {
                for element in elements { collect(steps, from: element, into: &out) }
            }
        }
    }
}
