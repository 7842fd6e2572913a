/// A matcher over a JSON value, also usable as a template: literals render to values, operators only match.
public indirect enum MatchSpec: Sendable, Hashable {
    /// Equal to the rendered scalar (integers and numbers compare by value).
    case literal(TemplateValue)
    /// An object: listed members must match; with `strict`, no other member may be present.
    case object([MatchField], strict: Bool)
    /// An array with exactly these elements, in this order.
    case array([MatchSpec])
    /// A string matching the regular expression (searched, not anchored).
    case regex(Template)
    /// A value of a JSON type: string, number, integer, boolean, object, array, null.
    case type(String)
    /// Any value that is present.
    case any
    /// The member must not be present.
    case absent
    /// No value: absent, `null`, or empty (`""`, `[]`, `{}`); how an optional member says "nothing" (D19).
    case noValue
    /// Any of the alternatives.
    case oneOf([MatchSpec])
    /// A number within the bounds.
    case range(NumericRange)
    /// An array containing, somewhere, an element matching each of these.
    case contains([MatchSpec])
    /// An array whose elements match these, in any order, one to one.
    case anyOrder([MatchSpec])
    /// An array, string or object whose length matches.
    case length(MatchSpec)
    /// Anything that does not match.
    case not(MatchSpec)
    /// All of these.
    case allOf([MatchSpec])
    /// An HTTP status class: `4xx` is `statusClass(4)`.
    case statusClass(Int)

    /// The matcher's name as written in suites, for messages.
    public var operatorName: String {
        switch self {
        case .literal: "value"
        case .object: "object"
        case .array: "array"
        case .regex: "$regex"
        case .type: "$type"
        case .any: "$any"
        case .absent: "$absent"
        case .noValue: "$none"
        case .oneOf: "$oneOf"
        case .range: "$range"
        case .contains: "$contains"
        case .anyOrder: "$anyOrder"
        case .length: "$length"
        case .not: "$not"
        case .allOf: "$all"
        case .statusClass: "status class"
        }
    }
}

/// One member of an object matcher: its key and the matcher of its value.
public typealias MatchField = ObjectMember<MatchSpec>

/// Numeric bounds; each side optional, inclusive or not.
public struct NumericRange: Sendable, Hashable, CustomStringConvertible {
    public var lower: Double?
    public var lowerInclusive: Bool
    public var upper: Double?
    public var upperInclusive: Bool

    public init(lower: Double? = nil, lowerInclusive: Bool = true, upper: Double? = nil, upperInclusive: Bool = true) {
        self.lower = lower
        self.lowerInclusive = lowerInclusive
        self.upper = upper
        self.upperInclusive = upperInclusive
    }

    public func contains(_ x: Double) -> Bool {
        if let lower, lowerInclusive ? x < lower : x <= lower { return false }
        if let upper, upperInclusive ? x > upper : x >= upper { return false }
        return true
    }

    public var description: String {
        func fmt(_ d: Double) -> String { d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d) }
        let parts = [
            lower.map { (lowerInclusive ? ">= " : "> ") + fmt($0) },
            upper.map { (upperInclusive ? "<= " : "< ") + fmt($0) },
        ].compactMap { $0 }
        return parts.isEmpty ? "any number" : "a number " + parts.joined(separator: " and ")
    }
}
