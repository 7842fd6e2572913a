import Foundation

/// Server-role matching: like ``MatchSpec/mismatches(_:at:in:strictObjects:)``, but names the client chooses
/// (generated identities, tokens) are bound to what the client sent instead of compared.
public struct Binder: Sendable {
    /// The values known so far; grows as free names are bound.
    public var scope: TemplateScope
    /// Names whose value the client chooses: bound on first sight, compared afterwards.
    public let free: Set<String>

    public init(scope: TemplateScope, free: Set<String>) {
        self.scope = scope
        self.free = free
    }

    /// Every mismatch between a request description and what a client sent; binds free names on the way.
    public mutating func mismatches(_ spec: RequestSpec, _ request: HTTPRequest) -> [Mismatch] {
        var out: [Mismatch] = []
        // The Android dialect sends PATCH as POST with an override header: either reading matches.
        if let expected = try? spec.method.renderText(in: scope), HTTPMethod(expected) != request.effectiveMethod,
            HTTPMethod(expected) != request.method
        {
            out.append(Mismatch(path: "method", expected: expected, actual: request.effectiveMethod.rawValue))
        }
        if case .string(let template) = spec.url {
            let pathTemplate = Binder.pathPart(of: template)
            if !bind(pathTemplate, to: request.path) {
                out.append(Mismatch(path: "path", expected: pathTemplate.source, actual: request.path))
            }
        }
        let items = request.queryItems
        for item in spec.query {
            let actual = items.first { $0.name == item.name }.map { JSONValue.string($0.value) }
            out += mismatches(item.value, actual, at: "query \(item.name)", text: true)
        }
        for header in spec.headers {
            let values = request.headerFields.values(for: header.name)
            out += mismatches(
                header.value, values.isEmpty ? nil : .string(values.joined(separator: ", ")),
                at: "header \(header.name)", text: true)
        }
        if case .json(let body)? = spec.body {
            out += Mismatch.inJSONBody(request.body) { mismatches(body, $0, at: "$", text: false) }
        }
        return out
    }

    /// Matches one value, binding free names in literal templates; `text` compares query and header values as text.
    public mutating func mismatches(_ spec: MatchSpec, _ actual: JSONValue?, at path: String, text: Bool) -> [Mismatch]
    {
        switch spec {
        case .literal(.string(let template)) where !template.isLiteral:
            guard let actual else { return [Mismatch(path: path, expected: template.source, actual: "(absent)")] }
            if let sole = template.soleExpression, sole.arguments.isEmpty, sole.named.isEmpty, free.contains(sole.head),
                scope[sole.head] == nil, Self.canBind(sole.head, actual, in: scope, free: free)
            {
                scope[sole.head] = actual
                return []
            }
            if case .string(let s) = actual, bind(template, to: s) { return [] }
            let rendered = try? scope.render(template)
            if !text, let rendered, MatchSpec.literal(TemplateValue(rendered)).matches(actual, in: scope) { return [] }
            let expected = rendered.map { text ? $0.text : $0.serialized() } ?? template.source
            return [Mismatch(path: path, expected: expected, actual: text ? actual.text : actual.serialized())]
        case .literal where text:
            guard case .string(let s)? = actual else { return spec.mismatches(actual, at: path, in: scope) }
            let expected = (try? spec.render(in: scope))?.text
            return expected == s ? [] : [Mismatch(path: path, expected: expected ?? "?", actual: s)]
        case .object(let fields, let strict):
            guard case .object(let object)? = actual else { return spec.mismatches(actual, at: path, in: scope) }
            var out: [Mismatch] = []
            for field in fields {
                out += mismatches(
                    field.value, object[field.key], at: MatchSpec.join(path, key: field.key), text: false)
            }
            if strict {
                let keys = Set(fields.map(\.key))
                for key in object.keys where !keys.contains(key) {
                    out.append(
                        Mismatch(
                            path: MatchSpec.join(path, key: key), expected: "(absent)",
                            actual: object[key]!.serialized()))
                }
            }
            return out
        case .array(let elements):
            guard case .array(let array)? = actual, array.count == elements.count else {
                return spec.mismatches(actual, at: path, in: scope)
            }
            var out: [Mismatch] = []
            for (i, e) in elements.enumerated() { out += mismatches(e, array[i], at: "\(path)[\(i)]", text: false) }
            return out
        default:
            return spec.mismatches(actual, at: path, in: scope)
        }
    }

    /// Matches text against a template: bound names must appear as they are, free unbound names and generator
    /// calls match any text; free names are bound to what they matched.
    public mutating func bind(_ template: Template, to text: String) -> Bool {
        // `(?s)`: `.` matches line breaks too, so a free name binds text of several lines.
        var pattern = "(?s)^"
        var groups: [String] = []
        var calls: [(group: Int, expression: TemplateExpression, recognize: TemplateFunction.Recognizer)] = []
        for part in template.parts {
            switch part {
            case .text(let t): pattern += NSRegularExpression.escapedPattern(for: t)
            case .expression(let e):
                let function = scope.functions[e.head]
                let isName = e.arguments.isEmpty && e.named.isEmpty && function == nil || scope[e.head] != nil
                if isName, let value = try? scope.evaluate(e) {
                    pattern += NSRegularExpression.escapedPattern(for: value.text)
                } else if isName, free.contains(e.head), !groups.contains(e.head) {
                    groups.append(e.head)
                    pattern += "(.+?)"
                } else if !isName, let recognize = function?.recognize {
                    groups.append("")
                    calls.append((groups.count, e, recognize))
                    pattern += "(.+?)"
                } else if !isName {
                    pattern += ".+?"
                } else {
                    return false
                }
            }
        }
        pattern += "$"
        guard let regex = try? RegexCache.regex(pattern),
            let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
        else { return false }
        var bound = scope
        for (i, name) in groups.enumerated() where !name.isEmpty {
            guard let range = Range(match.range(at: i + 1), in: text) else { continue }
            let value = JSONValue.string(String(text[range]))
            guard Self.canBind(name, value, in: bound, free: free) else { return false }
            bound[name] = value
        }
        // A call the function can recognise (a signed token) must be one it could have made with these
        // arguments; arguments naming values not known yet are bound to what the function finds.
        for call in calls {
            guard let range = Range(match.range(at: call.group), in: text) else { return false }
            var named: [String: JSONValue?] = [:]
            var unknown: [String: String] = [:]
            for (key, argument) in call.expression.named {
                switch argument {
                case .literal(let s): named[key] = Int(s).map(JSONValue.int) ?? .string(s)
                case .name(let n):
                    if let value = bound[n] {
                        named[key] = .some(value)
                    } else if free.contains(n) {
                        named[key] = .some(nil)
                        unknown[key] = n
                    } else {
                        return false
                    }
                }
            }
            guard let found = call.recognize(String(text[range]), named) else { return false }
            for (key, name) in unknown {
                guard let value = found[key], Self.canBind(name, value, in: bound, free: free) else { return false }
                bound[name] = value
            }
        }
        scope = bound
        return true
    }

    /// Whether a free name may take `value`: two client-chosen names (a user and another user, each from its
    /// own generator) never hold the same value.
    static func canBind(_ name: String, _ value: JSONValue, in scope: TemplateScope, free: Set<String>) -> Bool {
        !free.contains { $0 != name && scope[$0] == value }
    }

    /// The path of a URL template: whatever follows the origin (`{{ mobile }}` or `http://host`), without the query.
    static func pathPart(of template: Template) -> Template {
        var parts = template.parts
        // Drop a leading origin expression (`{{ mobile }}`) or scheme://host text.
        if case .expression? = parts.first, parts.count > 1, case .text(let t) = parts[1], t.hasPrefix("/") {
            parts.removeFirst()
        }
        if case .text(let t)? = parts.first, let r = t.range(of: "://") {
            let afterScheme = t[r.upperBound...]
            let path = afterScheme.firstIndex(of: "/").map { String(afterScheme[$0...]) } ?? "/"
            parts[0] = .text(path)
        }
        if let q = parts.lastIndex(where: { if case .text(let t) = $0 { t.contains("?") } else { false } }),
            case .text(let t) = parts[q]
        {
            parts = Array(parts[..<q]) + [.text(String(t[..<t.firstIndex(of: "?")!]))]
        }
        var out = Template(literal: "")
        out.parts = parts.filter { if case .text(let t) = $0 { !t.isEmpty } else { true } }
        out.source = parts.map { part -> String in
            switch part {
            case .text(let t): t
            case .expression(let e): "{{ \(e.head) }}"
            }
        }.joined()
        return out
    }
}
