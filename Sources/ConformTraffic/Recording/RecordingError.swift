import ConformDiagnostics

/// A problem with a recording file, rendered compiler-style: `file:line:col: error: message` and a `help:` line.
public struct RecordingError: DiagnosticConvertible, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// 1-based line in the file, or 0 when the problem is about the file as a whole.
    public var line: Int
    public var column: Int
    public var message: String
    public var help: String

    public init(file: String, line: Int = 0, column: Int = 0, message: String, help: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.help = help
    }

    /// The problem as a diagnostic: `recording.line-invalid` with its line and column, else `recording.invalid`.
    public var diagnostic: Diagnostic { diagnostic(.error) }

    public var description: String { diagnostic.rendered(sourceLine: nil) }

    /// The same problem as a warning: reported, and the rest of the file still read.
    public var warning: String { diagnostic(.warning).rendered(sourceLine: nil) }

    private func diagnostic(_ severity: Diagnostic.Severity) -> Diagnostic {
        Diagnostic(
            line > 0 ? .recordingLineInvalid : .recordingInvalid, severity, file: file,
            mark: line > 0 ? SourceMark(line: line, column: max(column, 1)) : nil, message: message, help: help)
    }
}
