import ConformReport
import ConformRunner
import Foundation

/// A report file a certification writes when its run ends, as `conform run --report KIND:FILE` does.
public struct CertificationReport: Sendable, Hashable {
    /// The format of a report.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// JUnit XML, for CI systems.
        case junit
        /// The run as JSON, for tools.
        case json
        /// The self-contained HTML certification page, credentials masked.
        case html

        /// The report file of a session.
        var target: ReportTarget.Kind {
            switch self {
            case .junit: .junit
            case .json: .json
            case .html: .html
            }
        }
    }

    /// The format.
    public var kind: Kind
    /// Where the report goes; the directory must exist, the file is replaced atomically.
    public var file: URL

    /// A report of `kind` written to `file`.
    public init(kind: Kind, file: URL) {
        self.kind = kind
        self.file = file
    }

    /// A JUnit XML report written to `file`.
    public static func junit(_ file: URL) -> CertificationReport { CertificationReport(kind: .junit, file: file) }
    /// A JSON report written to `file`.
    public static func json(_ file: URL) -> CertificationReport { CertificationReport(kind: .json, file: file) }
    /// An HTML certification page written to `file`.
    public static func html(_ file: URL) -> CertificationReport { CertificationReport(kind: .html, file: file) }

}
