extension MatchSpec {
    /// Renders the matcher as a concrete value (client requests, server responses); operators cannot be rendered.
    public func render(in scope: TemplateScope) throws(TemplateError) -> JSONValue {
        switch self {
        case .literal(let t): return try t.render(in: scope)
        case .object(let fields, _):
            var out = JSONObject()
            for field in fields {
                if case .absent = field.value { continue }
                if case .noValue = field.value { continue }
                out[field.key] = try field.value.render(in: scope)
            }
            return .object(out)
        case .array(let elements):
            var out: [JSONValue] = []
            for e in elements { out.append(try e.render(in: scope)) }
            return .array(out)
        case .oneOf(let alternatives) where !alternatives.isEmpty:
            return try alternatives[0].render(in: scope)
        case .allOf(let all):
            for m in all { if let v = try? m.render(in: scope) { return v } }
            fallthrough
        default:
            throw TemplateError(
                message: "the matcher \(operatorName) cannot be sent as a value",
                help: "use a literal value or a '{{ template }}' here; matchers belong in 'expect'"
            )
        }
    }

    /// The variable names the matcher reads.
    public var referencedNames: [String] {
        switch self {
        case .literal(let t): t.referencedNames
        case .object(let f, _): f.flatMap(\.value.referencedNames)
        case .array(let e), .oneOf(let e), .contains(let e), .anyOrder(let e), .allOf(let e):
            e.flatMap(\.referencedNames)
        case .regex(let t): t.referencedNames
        case .length(let m), .not(let m): m.referencedNames
        default: []
        }
    }
}
