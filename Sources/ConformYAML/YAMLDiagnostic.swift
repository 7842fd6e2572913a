/// One problem in a source file, rendered compiler-style: `file:line:col: error: message`, the line, a caret, `help:`.
public struct YAMLDiagnostic: Error, Sendable, Hashable {
    public enum Severity: String, Sendable, Hashable {
        case error, warning, note
    }

    public var severity: Severity
    public var file: String
    public var mark: SourceMark
    public var message: String
    /// One actionable line telling how to fix it.
    public var help: String?

    public init(_ severity: Severity = .error, file: String, mark: SourceMark, message: String, help: String? = nil) {
        self.severity = severity
        self.file = file
        self.mark = mark
        self.message = message
        self.help = help
    }
}
