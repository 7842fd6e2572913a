import ConformCore
import ConformDiagnostics
import ConformReport
import Foundation

/// `--report KIND:FILE`, parsed into the report files a ``Session`` writes.
enum ReportRequest {
    static let kinds = ReportTarget.Kind.allCases.map(\.rawValue)

    /// One `--report` value, its file resolved against the current directory.
    static func target(parsing spec: String, subcommand: String, io: CommandIO) throws(UsageError) -> ReportTarget {
        guard let colon = spec.firstIndex(of: ":"), colon != spec.startIndex, spec.index(after: colon) != spec.endIndex
        else {
            throw UsageError(
                message: "--report takes KIND:FILE (\(Self.kinds.joined(separator: ", "))), got '\(spec)'",
                subcommand: subcommand)
        }
        let name = String(spec[..<colon])
        let path = String(spec[spec.index(after: colon)...])
        guard let kind = ReportTarget.Kind(rawValue: name) else {
            throw UsageError(
                message: "unknown report kind '\(name)'; use one of: \(Self.kinds.joined(separator: ", "))",
                subcommand: subcommand)
        }
        return ReportTarget(kind: kind, file: URL(fileURLWithPath: io.resolve(path)), shownPath: path)
    }

    /// Every `--report` of `parsed`, checked.
    static func all(_ parsed: Arguments, subcommand: String, io: CommandIO) throws(UsageError) -> [ReportTarget] {
        try parsed.values("--report").map { (spec: String) throws(UsageError) -> ReportTarget in
            try target(parsing: spec, subcommand: subcommand, io: io)
        }
    }

    /// Seconds since `start`, for a result's duration.
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        (ContinuousClock.now - start).inSeconds
    }
}

extension CommandIO {
    /// The exit status of a session, its problems (a report that could not be written) reported.
    func status(of outcome: Session.Outcome) -> Int32 {
        for problem in outcome.problems { report(problem) }
        return outcome.status.rawValue
    }
}
