import ConformDiagnostics
import Foundation

/// A generator or helper callable from a template: `{{ uuid }}`, `{{ digits 8 }}`, `{{ jwt sub=user }}`.
public struct TemplateFunction: Sendable {
    /// Server role: whether `text` is something this call could have produced, given its named arguments
    /// (`nil` where an argument names a value not known yet); returns values found for those unknown
    /// arguments, or `nil` when `text` does not fit.
    public typealias Recognizer = @Sendable (_ text: String, _ named: [String: JSONValue?]) -> [String: JSONValue]?

    public var summary: String
    public var call:
        @Sendable (_ positional: [JSONValue], _ named: [String: JSONValue]) throws(TemplateError) -> JSONValue
    /// How a server recognises this call's output; without one, a call matches any text.
    public var recognize: Recognizer?
    /// The named arguments whose values the call's output carries as credentials (a JWT's signing key and its
    /// application code claim): a variable passed there in a credential place is a credential
    /// (``Suite/credentialVariables(profile:)``).
    public var credentialArguments: Set<String>

    public init(
        summary: String, credentialArguments: Set<String> = [],
        call:
            @escaping @Sendable (_ positional: [JSONValue], _ named: [String: JSONValue]) throws(TemplateError) ->
            JSONValue,
        recognize: Recognizer? = nil
    ) {
        self.summary = summary
        self.credentialArguments = credentialArguments
        self.call = call
        self.recognize = recognize
    }
}

/// The names a template can read (variables and captures) and the functions it can call.
public struct TemplateScope: Sendable {
    public var values: [String: JSONValue]
    public var functions: [String: TemplateFunction]

    public init(
        values: [String: JSONValue] = [:], functions: [String: TemplateFunction] = TemplateScope.builtinFunctions
    ) {
        self.values = values
        self.functions = functions
    }

    public subscript(name: String) -> JSONValue? {
        get { values[name] }
        set { values[name] = newValue }
    }

    /// Renders a template; a lone expression keeps its JSON type, otherwise the result is a string.
    public func render(_ template: Template) throws(TemplateError) -> JSONValue {
        if let sole = template.soleExpression { return try evaluate(sole) }
        var out = ""
        for part in template.parts {
            switch part {
            case .text(let t): out += t
            case .expression(let e): out += try evaluate(e).text
            }
        }
        return .string(out)
    }

    /// Renders a template to text.
    public func renderText(_ template: Template) throws(TemplateError) -> String { try render(template).text }

    /// Evaluates one expression: a call when it has arguments or names a function, else a variable path.
    public func evaluate(_ expression: TemplateExpression) throws(TemplateError) -> JSONValue {
        let isCall = !expression.arguments.isEmpty || !expression.named.isEmpty
        if !isCall, let value = try lookup(expression.head) { return value }
        if let function = functions[expression.head] {
            var positional: [JSONValue] = []
            for arg in expression.arguments { positional.append(try argument(arg)) }
            var named: [String: JSONValue] = [:]
            for (key, arg) in expression.named { named[key] = try argument(arg) }
            return try function.call(positional, named)
        }
        let known = Array(values.keys) + Array(functions.keys)
        let suggestion = closestMatch(to: expression.head, in: known).map { "did you mean '\($0)'? " } ?? ""
        throw TemplateError(
            message: "'\(expression.head)' is not defined",
            help:
                "\(suggestion)define it under 'vars:', capture it in an earlier step, or pass --var \(expression.head)=VALUE"
        )
    }

    private func argument(_ arg: TemplateExpression.Argument) throws(TemplateError) -> JSONValue {
        switch arg {
        case .literal(let s):
            if let i = Int(s) { return .int(i) }
            return .string(s)
        case .name(let n):
            if let v = try lookup(n) { return v }
            throw TemplateError(
                message: "'\(n)' is not defined", help: "define it under 'vars:' or capture it in an earlier step")
        }
    }

    /// Resolves `name` or `name.path[0]` against the values.
    private func lookup(_ path: String) throws(TemplateError) -> JSONValue? {
        let root = String(path.prefix { $0 != "." && $0 != "[" })
        guard let base = values[root] else { return nil }
        let rest = path.dropFirst(root.count)
        if rest.isEmpty { return base }
        guard let jsonPath = JSONPath(parsing: "$" + rest) else {
            throw TemplateError(message: "invalid path '\(path)'", help: "write name.key or name[0]")
        }
        guard let value = base[path: jsonPath] else {
            throw TemplateError(
                message: "'\(path)' does not exist in the value of '\(root)'",
                help: "check the path against the captured value")
        }
        return value
    }
}
