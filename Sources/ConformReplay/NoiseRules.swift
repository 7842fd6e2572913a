import ConformCore

/// Differences to ignore when comparing responses: volatile headers and JSON paths (wildcards allowed).
public struct NoiseRules: Sendable, Hashable {
    /// One ignore rule, with an optional reason for the reviewer.
    public enum Rule: Sendable, Hashable {
        case path(JSONPathPattern, reason: String?)
        case header(String, reason: String?)
    }

    public var rules: [Rule]
    /// Headers that change on every response whatever the implementation (Date, Server, connection handling).
    public var volatileHeaders: Set<String>

    public static let defaultVolatileHeaders: Set<String> = [
        "date", "server", "connection", "keep-alive", "content-length", "transfer-encoding", "age", "via", "etag",
        "last-modified", "expires", "x-request-id", "x-correlation-id", "x-runtime",
        // Whether a body came compressed (bodies are compared decoded): representation, not behaviour.
        "x-conform-content-encoding",
    ]

    public init(_ rules: [Rule] = [], volatileHeaders: Set<String> = NoiseRules.defaultVolatileHeaders) {
        self.rules = rules
        self.volatileHeaders = Set(volatileHeaders.map { $0.lowercased() })
    }

    /// Only the default volatile headers.
    public static let `default` = NoiseRules()

    /// The default volatile headers and the values a protocol documents as differing on every run (`diff`'s
    /// default noise, which `--no-default-noise` leaves out).
    public static func documented(by keys: ProtocolProfile.ReplayKeys) -> NoiseRules {
        NoiseRules(keys.volatileValues.map { .path($0.path, reason: $0.meaning) })
    }

    public func ignoresHeader(_ name: String) -> Bool {
        // Asked for every field of every answer: names compared without case in place, mostly told apart by their
        // length, with no lower-cased copy made and nothing hashed.
        if volatileHeaders.contains(where: { HTTPFields.sameName($0, name) }) { return true }
        return rules.contains { if case .header(let h, _) = $0 { HTTPFields.sameName(h, name) } else { false } }
    }

    public func ignoresPath(_ path: JSONPath) -> Bool {
        rules.contains { if case .path(let p, _) = $0 { p.matches(path) } else { false } }
    }

    /// The rules merged with `other`'s, without duplicates.
    public func merging(_ other: NoiseRules) -> NoiseRules {
        var out = self
        for rule in other.rules where !out.rules.contains(where: { $0.sameTarget(as: rule) }) { out.rules.append(rule) }
        out.volatileHeaders.formUnion(other.volatileHeaders)
        return out
    }
}

extension NoiseRules.Rule {
    func sameTarget(as other: NoiseRules.Rule) -> Bool {
        switch (self, other) {
        case (.path(let a, _), .path(let b, _)): a == b
        case (.header(let a, _), .header(let b, _)): a.lowercased() == b.lowercased()
        default: false
        }
    }
}
