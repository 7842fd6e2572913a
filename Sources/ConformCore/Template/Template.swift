/// A string with `{{ expression }}` holes: variables, captures and generator calls.
public struct Template: Sendable, Hashable, CustomStringConvertible {
    /// A literal run of text or an expression.
    public enum Part: Sendable, Hashable {
        case text(String)
        case expression(TemplateExpression)
    }

    public var parts: [Part]
    /// The text as written in the suite.
    public var source: String

    /// Parses `text`; an unterminated `{{` or an empty expression is an error.
    public init(parsing text: String) throws(TemplateSyntaxError) {
        source = text
        parts = []
        // Scan UTF-8 for `{{` and `}}`: most suite strings have no hole at all.
        let utf8 = Substring(text).utf8
        var rest = utf8[...]
        while let open = Template.find(UInt8(ascii: "{"), in: rest) {
            if open > rest.startIndex { parts.append(.text(String(Substring(rest[rest.startIndex..<open])))) }
            let innerStart = utf8.index(open, offsetBy: 2)
            guard let close = Template.find(UInt8(ascii: "}"), in: rest[innerStart...]) else {
                throw TemplateSyntaxError(
                    message: "unterminated '{{' in \"\(text)\"", help: "close the expression with '}}'")
            }
            parts.append(.expression(try TemplateExpression(parsing: String(Substring(rest[innerStart..<close])))))
            rest = rest[utf8.index(close, offsetBy: 2)...]
        }
        if parts.isEmpty {
            // No hole: the one literal part shares the source's storage.
            if !text.isEmpty { parts = [.text(text)] }
        } else if !rest.isEmpty {
            parts.append(.text(String(Substring(rest))))
        }
    }

    /// The index of the first doubled `byte` (`{{` or `}}`) in `bytes`.
    private static func find(_ byte: UInt8, in bytes: Substring.UTF8View) -> Substring.UTF8View.Index? {
        var i = bytes.startIndex
        while let hit = bytes[i...].firstIndex(of: byte) {
            let next = bytes.index(after: hit)
            if next < bytes.endIndex, bytes[next] == byte { return hit }
            i = next
        }
        return nil
    }

    /// A template with no holes.
    public init(literal text: String) {
        source = text
        parts = text.isEmpty ? [] : [.text(text)]
    }

    /// True when the template has no expression.
    public var isLiteral: Bool { parts.allSatisfy { if case .text = $0 { true } else { false } } }

    /// The single expression when the whole string is one `{{ … }}` (its value keeps its JSON type).
    public var soleExpression: TemplateExpression? {
        if parts.count == 1, case .expression(let e) = parts[0] { return e }
        return nil
    }

    /// Every variable name the template reads.
    public var referencedNames: [String] {
        parts.flatMap { part -> [String] in
            guard case .expression(let e) = part else { return [] }
            return e.referencedNames
        }
    }

    /// The functions the template calls with arguments (`digits` in `{{ digits 3 }}`); a call without arguments
    /// reads like a name and is among ``referencedNames``.
    public var calledFunctions: [String] {
        parts.compactMap { part -> String? in
            guard case .expression(let e) = part, !e.arguments.isEmpty || !e.named.isEmpty else { return nil }
            return e.head
        }
    }

    /// The first word of every expression: a variable's name, or the function a call names (`digits` in
    /// `{{ digits 3 }}`).
    public var expressionHeads: [String] {
        parts.compactMap { part -> String? in
            guard case .expression(let e) = part else { return nil }
            return String(e.head.prefix { $0 != "." && $0 != "[" })
        }
    }

    public var description: String { source }
}

/// `name`, `name.path[0]`, or a call `function arg key=value` with quoted strings, numbers or names as arguments.
public struct TemplateExpression: Sendable, Hashable {
    /// An argument of a call.
    public enum Argument: Sendable, Hashable {
        case literal(String)
        case name(String)
    }

    public var head: String
    public var arguments: [Argument]
    public var named: [String: Argument]

    public init(parsing text: String) throws(TemplateSyntaxError) {
        let tokens = try TemplateExpression.tokenize(text)
        guard let first = tokens.first, case .name(let head) = first.value, first.key == nil else {
            throw TemplateSyntaxError(
                message: "empty or invalid expression '{{\(text)}}'",
                help: "write a variable name, e.g. '{{ user }}', or a generator such as '{{ uuid }}'")
        }
        self.head = head
        arguments = []
        named = [:]
        for token in tokens.dropFirst() {
            if let key = token.key { named[key] = token.value } else { arguments.append(token.value) }
        }
    }

    /// Variable names read by this expression (the head when it is not a call, and name arguments).
    public var referencedNames: [String] {
        var names: [String] = []
        if arguments.isEmpty, named.isEmpty { names.append(rootName(head)) }
        for arg in arguments + Array(named.values) { if case .name(let n) = arg { names.append(rootName(n)) } }
        return names
    }

    private func rootName(_ path: String) -> String {
        String(path.prefix { $0 != "." && $0 != "[" })
    }

    private static func tokenize(_ text: String) throws(TemplateSyntaxError) -> [(key: String?, value: Argument)] {
        var tokens: [(String?, Argument)] = []
        var chars = Substring(text)
        while true {
            chars = chars.drop { $0 == " " || $0 == "\t" }
            guard let c = chars.first else { break }
            var key: String?
            if c != "\"" && c != "'", let eq = chars.firstIndex(of: "="),
                !chars[..<eq].contains(where: { $0 == " " || $0 == "\"" || $0 == "'" })
            {
                key = String(chars[..<eq])
                chars = chars[chars.index(after: eq)...]
            }
            guard let start = chars.first else {
                throw TemplateSyntaxError(message: "missing value after '\(key ?? "")='", help: "write key=value")
            }
            if start == "\"" || start == "'" {
                let body = chars.dropFirst()
                guard let end = body.firstIndex(of: start) else {
                    throw TemplateSyntaxError(
                        message: "unterminated quoted string in '{{\(text)}}'", help: "close the string with \(start)")
                }
                tokens.append((key, .literal(String(body[..<end]))))
                chars = body[body.index(after: end)...]
            } else {
                let end = chars.firstIndex { $0 == " " || $0 == "\t" } ?? chars.endIndex
                let word = String(chars[..<end])
                chars = chars[end...]
                if let f = word.first, f.isNumber || f == "-" {
                    tokens.append((key, .literal(word)))
                } else {
                    tokens.append((key, .name(word)))
                }
            }
        }
        return tokens
    }
}

/// A template that cannot be parsed.
public struct TemplateSyntaxError: Error, Sendable, Hashable {
    public var message: String
    public var help: String
}

/// A template that cannot be rendered: an undefined name, a failing generator.
public struct TemplateError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var help: String

    public init(message: String, help: String) {
        self.message = message
        self.help = help
    }

    public var description: String { message }
}
