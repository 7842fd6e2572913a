/// A JSON-shaped value whose strings are templates; rendered against a ``TemplateScope``.
public indirect enum TemplateValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(Template)
    case array([TemplateValue])
    case object([TemplateField])

    /// A literal string with no holes.
    public static func text(_ s: String) -> TemplateValue { .string(Template(literal: s)) }

    /// Converts a concrete JSON value (no templates).
    public init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .int(let i): self = .int(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(Template(literal: s))
        case .array(let a): self = .array(a.map(TemplateValue.init))
        case .object(let o): self = .object(o.map { TemplateField(key: $0.key, value: TemplateValue($0.value)) })
        }
    }

    /// Renders every template, keeping JSON types (`"{{ n }}"` alone yields n's own type).
    public func render(in scope: TemplateScope) throws(TemplateError) -> JSONValue {
        switch self {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let t): return try scope.render(t)
        case .array(let a):
            var out: [JSONValue] = []
            for element in a { out.append(try element.render(in: scope)) }
            return .array(out)
        case .object(let fields):
            var out = JSONObject()
            for field in fields { out[field.key] = try field.value.render(in: scope) }
            return .object(out)
        }
    }

    /// Renders to text: strings as they are, other values as compact JSON.
    public func renderText(in scope: TemplateScope) throws(TemplateError) -> String {
        try render(in: scope).text
    }

    /// Every variable name read anywhere in the value.
    public var referencedNames: [String] {
        switch self {
        case .string(let t): t.referencedNames
        case .array(let a): a.flatMap(\.referencedNames)
        case .object(let f): f.flatMap(\.value.referencedNames)
        default: []
        }
    }
}

/// One member of a templated object.
public typealias TemplateField = ObjectMember<TemplateValue>

extension TemplateValue: CustomStringConvertible {
    /// The value as written, templates unrendered.
    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let b): String(b)
        case .int(let i): String(i)
        case .double(let d): String(d)
        case .string(let t): t.source
        case .array(let a): "[" + a.map(\.description).joined(separator: ", ") + "]"
        case .object(let f): "{" + f.map { "\($0.key): \($0.value.description)" }.joined(separator: ", ") + "}"
        }
    }
}
