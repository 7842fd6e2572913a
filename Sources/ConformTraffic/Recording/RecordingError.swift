/// A problem with a recording file, rendered compiler-style: `file:line:col: error: message` and a `help:` line.
public struct RecordingError: Error, Sendable, Hashable, CustomStringConvertible {
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

    public var description: String { rendered(severity: "error") }

    /// The same problem as a warning: reported, and the rest of the file still read.
    public var warning: String { rendered(severity: "warning") }

    private func rendered(severity: String) -> String {
        let location = line > 0 ? "\(file):\(line):\(max(column, 1))" : file
        return "\(location): \(severity): \(message)\nhelp: \(help)"
    }
}
