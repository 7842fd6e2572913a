import ConformCore

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
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard rest.hasPrefix("$") else { return nil }
        description = String(rest)
        rest = rest.dropFirst()
        var steps: [Step] = []
        while let first = rest.first {
            if rest.hasPrefix("..") {
                rest = rest.dropFirst(2)
                let end = rest.firstIndex { $0 == "." || $0 == "[" } ?? rest.endIndex
                guard end > rest.startIndex else { return nil }
                steps.append(.descendant(String(rest[..<end])))
                rest = rest[end...]
            } else if first == "." {
                rest = rest.dropFirst()
                let end = rest.firstIndex { $0 == "." || $0 == "[" } ?? rest.endIndex
                let key = rest[..<end]
                guard !key.isEmpty else { return nil }
                steps.append(key == "*" ? .anyKey : .key(String(key)))
                rest = rest[end...]
            } else if first == "[" {
                guard let close = rest.firstIndex(of: "]") else { return nil }
                let inner = rest[rest.index(after: rest.startIndex)..<close]
                if inner == "*" {
                    steps.append(.anyIndex)
                } else if let i = Int(inner) {
                    steps.append(.index(i))
                } else if inner.count >= 2, let q = inner.first, q == "'" || q == "\"", inner.last == q {
                    steps.append(.key(String(inner.dropFirst().dropLast())))
                } else {
                    return nil
                }
                rest = rest[rest.index(after: close)...]
            } else {
                return nil
            }
        }
        self.steps = steps
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

extension JSONValue {
    /// Returns the value with every leaf or subtree rewritten by `transform`, given its concrete path.
    func rewritten(at path: JSONPath = JSONPath(), _ transform: (JSONPath, JSONValue) -> JSONValue?) -> JSONValue {
        if let replaced = transform(path, self) { return replaced }
        switch self {
        case .array(let items):
            return .array(
                items.enumerated().map { $0.element.rewritten(at: path.appending(index: $0.offset), transform) })
        case .object(let object):
            var out = JSONObject()
            for (key, value) in object { out[key] = value.rewritten(at: path.appending(key: key), transform) }
            return .object(out)
        default:
            return self
        }
    }

    /// Visits every node with its concrete path, parents before children.
    func walk(at path: JSONPath = JSONPath(), _ visit: (JSONPath, JSONValue) -> Void) {
        visit(path, self)
        switch self {
        case .array(let items):
            for (i, item) in items.enumerated() { item.walk(at: path.appending(index: i), visit) }
        case .object(let object):
            for (key, value) in object { value.walk(at: path.appending(key: key), visit) }
        default: break
        }
    }
}
