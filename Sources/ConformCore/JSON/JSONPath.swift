import Foundation

/// A path into a JSON value: `$.instances[0].pushRegId`, `$['odd key']`, or `$` for the root.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public var components: [Component]

    public init(_ components: [Component] = []) { self.components = components }

    /// Parses `$.a.b[0]['c d']`; the leading `$` is optional.
    public init?(parsing text: String) {
        var chars = Substring(text.trimmingCharacters(in: .whitespaces))
        if chars.hasPrefix("$") { chars = chars.dropFirst() }
        guard let steps = JSONPathPattern.steps(of: chars, wildcards: false, bareFirstKey: true) else { return nil }
        components = steps.compactMap { step in
            switch step {
            case .key(let key): .key(key)
            case .index(let index): .index(index)
            case .anyIndex, .anyKey, .descendant: nil
            }
        }
    }

    public func appending(_ component: Component) -> JSONPath { JSONPath(components + [component]) }
    public func appending(key: String) -> JSONPath { appending(.key(key)) }
    public func appending(index: Int) -> JSONPath { appending(.index(index)) }

    public var description: String {
        var out = "$"
        for component in components {
            switch component {
            case .index(let i): out += "[\(i)]"
            case .key(let k):
                if !k.isEmpty, k.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) {
                    out += ".\(k)"
                } else {
                    out += "['\(k)']"
                }
            }
        }
        return out
    }
}

extension JSONValue {
    /// The value at `path`, or `nil` when a step does not exist.
    public subscript(path path: JSONPath) -> JSONValue? {
        var current: JSONValue? = self
        for component in path.components {
            switch component {
            case .key(let k): current = current?[k]
            case .index(let i):
                if i < 0, case .array(let a)? = current {
                    current = a.indices.contains(a.count + i) ? a[a.count + i] : nil
                } else {
                    current = current?[i]
                }
            }
            if current == nil { return nil }
        }
        return current
    }
}
