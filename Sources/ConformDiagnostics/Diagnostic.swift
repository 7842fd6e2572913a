/// One problem for a person to fix: where (file, line, column, when known), how bad, what is wrong and how to fix it.
///
/// Libraries return diagnostics; the command line renders them with ``rendered(source:color:)``.
public struct Diagnostic: Error, Sendable, Hashable {
    public enum Severity: String, Sendable, Hashable {
        case error, warning, note
    }

    /// Which kind of problem this is, from ``DiagnosticID``'s catalog.
    public var id: DiagnosticID
    public var severity: Severity
    /// The file the problem is in; `nil` for problems that have none (a port that cannot be bound).
    public var file: String?
    /// The 1-based line and column in `file`; `nil` when the problem is about the file as a whole.
    public var mark: SourceMark?
    /// Where inside the file when a line and column say less (`exchange 3 (M4, …)` of a recording).
    public var context: String?
    /// A finer name within the id's family (a flow rule such as `registration-first`), shown as `error[code]:`.
    public var code: String?
    public var message: String
    /// One actionable line telling how to fix it.
    public var help: String?

    public init(
        _ id: DiagnosticID, _ severity: Severity = .error, file: String? = nil, mark: SourceMark? = nil,
        context: String? = nil, code: String? = nil, message: String, help: String? = nil
    ) {
        self.id = id
        self.severity = severity
        self.file = file
        self.mark = mark
        self.context = context
        self.code = code
        self.message = message
        self.help = help
    }

    /// Diagnostics in the order a reader meets them: by file, then line and column; file-less ones first.
    public static func inSourceOrder(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        diagnostics.enumerated().sorted { a, b in
            let left = (a.element.file ?? "", a.element.mark ?? SourceMark(line: 0, column: 0))
            let right = (b.element.file ?? "", b.element.mark ?? SourceMark(line: 0, column: 0))
            if left.0 != right.0 { return left.0 < right.0 }
            if left.1 != right.1 { return left.1 < right.1 }
            return a.offset < b.offset
        }.map(\.element)
    }
}

/// An error that is, for a person, one ``Diagnostic``: the command line renders it with the one renderer.
public protocol DiagnosticConvertible: Error {
    var diagnostic: Diagnostic { get }
}

extension Diagnostic: DiagnosticConvertible {
    public var diagnostic: Diagnostic { self }
}
