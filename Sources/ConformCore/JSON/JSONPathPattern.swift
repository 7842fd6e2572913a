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
