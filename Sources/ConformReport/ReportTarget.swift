import ConformDiagnostics
import Foundation

/// A report file a session writes: its format and where it goes (`--report KIND:FILE`).
public struct ReportTarget: Sendable, Hashable {
    /// The format of a report.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// JUnit XML, for CI systems.
        case junit
        /// The result as JSON, for tools and `conform merge`.
        case json
        /// The self-contained HTML page, credentials masked.
        case html
    }

    public var kind: Kind
    public var file: URL
    /// The path as the user gave it, for messages.
    public var shownPath: String

    public init(kind: Kind, file: URL, shownPath: String? = nil) {
        self.kind = kind
        self.file = file
        self.shownPath = shownPath ?? file.path
    }

    /// The reporter that renders this kind into `sink`; a JSON report places a shard's suites by `placement`.
    public func reporter(sink: any TextSink, placement: ShardPlacement? = nil) -> any RunReporter {
        switch kind {
        case .junit: JUnitReporter(sink: sink)
        case .html: HTMLReporter(sink: sink)
        case .json: JSONReporter(sink: sink, placement: placement)
        }
    }

    /// Why the report cannot be written, as a diagnostic.
    func cannotWrite(_ error: any Error) -> Diagnostic {
        Diagnostic(
            .reportUnwritable,
            message: "cannot write the \(kind.rawValue) report to \(shownPath): \(error.localizedDescription)",
            help: "check that the directory exists and is writable")
    }
}
