import ConformDiagnostics
import ConformYAML

extension LoadContext {
    static let requestKeys = ["method", "url", "query", "headers", "json", "body"]
    static let responseKeys = ["status", "headers", "json", "body", "strict"]
    static let operators = [
        "$eq", "$regex", "$type", "$any", "$absent", "$none", "$oneOf", "$gt", "$gte", "$lt", "$lte", "$contains",
        "$anyOrder",
        "$length", "$not", "$strict",
    ]
    static let typeNames = ["string", "number", "integer", "boolean", "object", "array", "null"]

    mutating func requestSpec(_ node: YAMLNode) -> RequestSpec? {
        guard let pairs = mapping(node, "request") else { return nil }
        checkKeys(pairs, allowed: Self.requestKeys, in: "request")
        let methodNode = value(pairs, "method")
        let method = methodNode.flatMap { template($0, "method") } ?? Template(literal: "GET")
        if let methodNode, method.isLiteral, !HTTPSyntax.isToken(method.source) {
            error(
                methodNode, "method \(HTTPSyntax.quoted(method.source)) is not an HTTP token",
                help: "write a method such as GET, POST or PATCH (letters, digits, !#$%&'*+-.^_`|~)")
        }
        guard
            let url = required(pairs, "url", in: node, help: "add 'url: \"{{ mobile }}/mobile/1/appinstance\"'")
                .flatMap({ template($0, "url") })
        else { return nil }
        var spec = RequestSpec(method: shared(.string(method)), url: shared(.string(url)), mark: node.mark)
        if let q = value(pairs, "query") { spec.query = namedMatchers(q, "query") }
        if let h = value(pairs, "headers") {
            spec.headers = namedMatchers(h, "headers")
            let pairs: [YAMLNode.Pair] = if case .mapping(let p) = h.kind { p } else { [] }
            for pair in pairs {
                guard let name = pair.key.scalarString, !HTTPSyntax.isToken(name) else { continue }
                error(
                    pair.key, "header name \(HTTPSyntax.quoted(name)) is not an HTTP token",
                    help: "header names are letters, digits and !#$%&'*+-.^_`|~, e.g. 'X-Request-Id'")
            }
        }
        spec.body = body(pairs, in: node)
        return spec
    }

    mutating func responseSpec(_ node: YAMLNode, _ what: String) -> ResponseSpec? {
        guard let pairs = mapping(node, what) else { return nil }
        checkKeys(pairs, allowed: Self.responseKeys, in: what)
        var spec = ResponseSpec()
        if let s = value(pairs, "status") { spec.status = shared(status(s)) }
        if let h = value(pairs, "headers") { spec.headers = namedMatchers(h, "headers") }
        spec.body = body(pairs, in: node)
        if let s = value(pairs, "strict") {
            if case .bool(let b)? = s.resolvedScalar {
                spec.strictJSON = b
            } else {
                error(
                    s, "strict must be true or false, found \(s.kindDescription)",
                    help: "write 'strict: true' to refuse members the suite does not list")
            }
        }
        return spec
    }

    mutating func body(_ pairs: [YAMLNode.Pair], in node: YAMLNode) -> BodySpec? {
        let json = value(pairs, "json")
        let raw = value(pairs, "body")
        if json != nil, let raw {
            error(
                raw, "'json' and 'body' cannot both be given", help: "use 'json' for a JSON body or 'body' for raw text"
            )
            return nil
        }
        if let json { return .json(shared(matcher(json))) }
        if let raw, let t = template(raw, "body") { return .text(shared(.string(t))) }
        return nil
    }

    mutating func namedMatchers(_ node: YAMLNode, _ what: String) -> [(name: String, value: MatchSpec)] {
        guard let pairs = mapping(node, what) else { return [] }
        var out: [(name: String, value: MatchSpec)] = []
        out.reserveCapacity(pairs.count)
        for pair in pairs {
            guard let name = pair.key.scalarString else { continue }
            out.append((name, shared(matcher(pair.value, scalarsAsText: true))))
        }
        return matcherLists.intern(NamedMatcherList(items: out)).items
    }

    mutating func status(_ node: YAMLNode) -> MatchSpec {
        switch node.kind {
        case .scalar(let text, _):
            if case .int(let code)? = node.resolvedScalar, (100...599).contains(code) { return .literal(.int(code)) }
            if text.count == 3, text.hasSuffix("xx"), let c = Int(String(text.first!)), (1...5).contains(c) {
                return .statusClass(c)
            }
            error(
                node, "'\(text)' is not a status",
                help: "write a code (200), a class ('4xx'), a list ([200, 204]) or a matcher ({$gte: 400})")
            return .any
        case .sequence(let items): return .oneOf(items.map { status($0) })
        case .mapping: return matcher(node)
        }
    }

    /// A matcher from YAML: operator maps (`$regex`, …), objects, lists and templated scalars.
    mutating func matcher(_ node: YAMLNode, scalarsAsText: Bool = false) -> MatchSpec {
        switch node.kind {
        case .scalar(let text, let style):
            if style == .plain, text == "$any" { return .any }
            if style == .plain, text == "$absent" { return .absent }
            if style == .plain, text == "$none" { return .noValue }
            if scalarsAsText, node.resolvedScalar != .null {
                return parseTemplate(text, at: node.mark).map { .literal(.string($0)) } ?? .any
            }
            return .literal(templateValue(node))
        case .sequence(let items):
            return .array(items.map { matcher($0, scalarsAsText: scalarsAsText) })
        case .mapping(let pairs):
            let keys = pairs.compactMap(\.key.scalarString)
            let operatorKeys = keys.filter { $0.hasPrefix("$") }
            if operatorKeys.isEmpty {
                return .object(
                    pairs.compactMap { pair in
                        guard let key = pair.key.scalarString else { return nil }
                        return MatchField(key: key, value: matcher(pair.value))
                    }, strict: false)
            }
            if operatorKeys.count != keys.count {
                error(
                    node, "a matcher mixes operators (\(operatorKeys.joined(separator: ", "))) with plain keys",
                    help:
                        "use either '$' operators or object members in one mapping; wrap members in '$strict' or nest them"
                )
            }
            let ops = pairs.compactMap { pair -> MatchSpec? in
                guard let key = pair.key.scalarString, key.hasPrefix("$") else { return nil }
                return op(key, pair.value, keyNode: pair.key)
            }
            return ops.count == 1 ? ops[0] : .allOf(ops)
        }
    }

    mutating func op(_ key: String, _ node: YAMLNode, keyNode: YAMLNode) -> MatchSpec? {
        switch key {
        case "$eq": return .literal(templateValue(node))
        case "$regex":
            guard let t = template(node, "$regex") else { return nil }
            if t.isLiteral, (try? RegexCache.regex(t.source)) == nil {
                error(
                    node, "invalid regular expression '\(t.source)'",
                    help: "check the pattern (ICU syntax); escape '\\' as '\\\\' inside double quotes")
            }
            return .regex(t)
        case "$type":
            guard let name = string(node, "$type") else { return nil }
            if !Self.typeNames.contains(name) {
                error(
                    node, "unknown type '\(name)'",
                    help: closestMatch(to: name, in: Self.typeNames).map { "did you mean '\($0)'?" }
                        ?? "use one of: \(Self.typeNames.joined(separator: ", "))")
            }
            return .type(name)
        case "$any", "$absent", "$none":
            guard node.resolvedScalar == .bool(true) else {
                error(node, "\(key) takes 'true'", help: "write '{\(key): true}' or the shorthand '\(key)'")
                return nil
            }
            return key == "$any" ? .any : key == "$absent" ? .absent : .noValue
        case "$oneOf", "$contains", "$anyOrder":
            let items: [YAMLNode]
            if case .sequence(let list) = node.kind {
                items = list
            } else if key == "$contains" {
                items = [node]
            } else {
                error(node, "\(key) takes a list, found \(node.kindDescription)", help: "write '{\(key): [a, b]}'")
                return nil
            }
            let ms = items.map { matcher($0) }
            return key == "$oneOf" ? .oneOf(ms) : key == "$contains" ? .contains(ms) : .anyOrder(ms)
        case "$gt", "$gte", "$lt", "$lte":
            let n: Double
            switch node.resolvedScalar {
            case .int(let i)?: n = Double(i)
            case .double(let d)?: n = d
            default:
                error(node, "\(key) takes a number, found \(node.kindDescription)", help: "write '{\(key): 10}'")
                return nil
            }
            switch key {
            case "$gt": return .range(NumericRange(lower: n, lowerInclusive: false))
            case "$gte": return .range(NumericRange(lower: n))
            case "$lt": return .range(NumericRange(upper: n, upperInclusive: false))
            default: return .range(NumericRange(upper: n))
            }
        case "$length":
            if case .int(let i)? = node.resolvedScalar { return .length(.literal(.int(i))) }
            return .length(matcher(node))
        case "$not": return .not(matcher(node))
        case "$strict":
            guard case .object(let fields, _) = matcher(node) else {
                error(
                    node, "$strict takes a mapping of members, found \(node.kindDescription)",
                    help: "write '{$strict: {a: 1}}'")
                return nil
            }
            return .object(fields, strict: true)
        default:
            let suggestion = closestMatch(to: key, in: Self.operators)
            error(
                keyNode, "unknown matcher '\(key)'",
                help: suggestion.map { "did you mean '\($0)'?" }
                    ?? "matchers: \(Self.operators.joined(separator: ", "))")
            return nil
        }
    }

    /// A templated JSON-shaped value from YAML, using the core schema for scalars.
    mutating func templateValue(_ node: YAMLNode) -> TemplateValue {
        switch node.kind {
        case .scalar(let text, _):
            switch node.resolvedScalar {
            case .null?: return .null
            case .bool(let b)?: return .bool(b)
            case .int(let i)?: return .int(i)
            case .double(let d)?: return .double(d)
            default: return parseTemplate(text, at: node.mark).map { .string($0) } ?? .text(text)
            }
        case .sequence(let items): return .array(items.map { templateValue($0) })
        case .mapping(let pairs):
            return .object(
                pairs.compactMap { pair in
                    guard let key = pair.key.scalarString else { return nil }
                    return TemplateField(key: key, value: templateValue(pair.value))
                })
        }
    }
}
