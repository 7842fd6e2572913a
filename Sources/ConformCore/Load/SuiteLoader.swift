import ConformDiagnostics
import ConformYAML
import Foundation

/// Loads suites from YAML, collecting every problem in a file as a diagnostic with file, line and column.
public struct SuiteLoader: Sendable {
    public var limits: YAMLLimits
    /// Names every suite may use without declaring them (target defaults such as base URLs).
    public var predefinedNames: Set<String>

    public init(limits: YAMLLimits = .default, predefinedNames: Set<String> = []) {
        self.limits = limits
        self.predefinedNames = predefinedNames
    }

    /// Reads and loads the suite at `path`.
    public func load(path: String) throws(YAMLParseFailure) -> Suite {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw YAMLParseFailure([
                Diagnostic(
                    .fileUnreadable, file: path, mark: SourceMark(line: 1, column: 1), message: "cannot read the file",
                    help: "check that the path exists and is readable")
            ])
        }
        return try load(bytes: [UInt8](data), file: path)
    }

    /// Loads a suite from bytes named `file` in diagnostics.
    public func load(bytes: [UInt8], file: String) throws(YAMLParseFailure) -> Suite {
        guard let root = try YAML.parse(bytes, file: file, limits: limits) else {
            throw YAMLParseFailure([
                Diagnostic(
                    .fileEmpty, file: file, mark: SourceMark(line: 1, column: 1), message: "the file is empty",
                    help: "a suite starts with 'suite: <id>' and 'title: <text>'")
            ])
        }
        var context = LoadContext(file: file, predefined: predefinedNames)
        let suite = context.suite(root)
        context.checkReferences()
        if let failure = context.failure { throw failure }
        return suite!
    }
}

/// The state of loading one file: its name and the problems found so far.
struct LoadContext: YAMLDecodingContext {
    let file: String
    let predefined: Set<String>
    var diagnostics: [Diagnostic] = []
    var defaultID: DiagnosticID { .suiteInvalid }
    /// Template names used, with where, checked once the whole file is read.
    var references: [(name: String, mark: SourceMark)] = []
    var declared: Set<String> = []

    init(file: String, predefined: Set<String>) {
        self.file = file
        self.predefined = predefined
    }

    mutating func template(_ node: YAMLNode, _ what: String) -> Template? {
        guard let text = string(node, what) else { return nil }
        return parseTemplate(text, at: node.mark)
    }

    mutating func parseTemplate(_ text: String, at mark: SourceMark) -> Template? {
        do {
            let t = try Template(parsing: text)
            for name in t.referencedNames { references.append((name, mark)) }
            return t
        } catch {
            self.error(at: mark, error.message, help: error.help, id: .suiteTemplate)
            return nil
        }
    }

    mutating func duration(_ node: YAMLNode, _ what: String) -> Duration? {
        var parsed: Duration?
        switch node.resolvedScalar {
        case .int(let i)?: parsed = DurationText.seconds(Double(i))
        case .double(let d)?: parsed = DurationText.seconds(d)
        case .string(let s)?: parsed = DurationText.parse(s)
        default: break
        }
        if let parsed { return parsed }
        error(
            node,
            "\(what) must be a duration from 0 to 24h such as 5s, 200ms or 1m, found \(node.kindDescription)",
            help: "write e.g. '\(what): 5s'", id: .yamlInvalidValue)
        return nil
    }

    /// Records a name as declared (a variable or a capture).
    mutating func declare(_ name: String) { declared.insert(name) }

    /// Reports every template name that is neither declared, predefined, nor a function.
    mutating func checkReferences() {
        let known = declared.union(predefined).union(TemplateScope.builtinFunctions.keys).union(["jwt"])
        for (name, mark) in references where !known.contains(name) {
            let suggestion = closestMatch(to: name, in: Array(known)).map { "did you mean '\($0)'? " } ?? ""
            error(
                at: mark, "'\(name)' is not defined",
                help:
                    "\(suggestion)declare it under 'vars:' (an empty default is fine for values given with --var) or capture it in an earlier step",
                id: .suiteUndeclaredName)
        }
    }
}

extension YAMLNode {
    /// The scalar's text if it is a non-null scalar.
    var scalarString: String? {
        if case .scalar(let text, _) = kind { return text }
        return nil
    }
}
