import ConformDiagnostics
import Foundation

/// A report written as its reporter goes, into a file beside its path that takes the path's place once complete:
/// a report never sits whole in memory, and a half-written one never replaces an earlier report.
public final class ReportFile: Sendable {
    public let target: ReportTarget
    let partial: URL
    /// Where the reporter writes.
    public let sink: FileHandleSink

    public init(_ target: ReportTarget) throws {
        self.target = target
        let destination = target.file
        partial = destination.deletingLastPathComponent().appendingPathComponent(
            ".\(destination.lastPathComponent).\(UUID().uuidString).partial")
        guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: partial.path])
        }
        sink = FileHandleSink(try FileHandle(forWritingTo: partial))
    }

    deinit { try? FileManager.default.removeItem(at: partial) }

    /// A file for each target; on the first that cannot be created, the diagnostic that says so.
    public static func open(_ targets: [ReportTarget]) -> Result<[ReportFile], DiagnosticFailure> {
        var files: [ReportFile] = []
        for target in targets {
            do {
                files.append(try ReportFile(target))
            } catch {
                return .failure(DiagnosticFailure(target.cannotWrite(error)))
            }
        }
        return .success(files)
    }

    /// Puts every complete report in its place; on the first that cannot be moved, the diagnostic that says so.
    public static func finish(_ files: [ReportFile]) -> Diagnostic? {
        for file in files {
            // rename(2) replaces an earlier report in one step. (Foundation's `replaceItemAt` on Linux removed the
            // earlier report and then failed, so a second run with the same `--report` paths lost its reports.)
            guard rename(file.partial.path, file.target.file.path) == 0 else {
                return file.target.cannotWrite(SystemCallError(call: "rename", code: errno))
            }
        }
        return nil
    }
}

/// A diagnostic as an error, for `Result`.
public struct DiagnosticFailure: Error, Sendable {
    public var diagnostic: Diagnostic
    public init(_ diagnostic: Diagnostic) { self.diagnostic = diagnostic }
}

/// A failed system call, worded as the C library words its error number.
public struct SystemCallError: LocalizedError {
    public var call: String
    public var code: Int32

    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    public var errorDescription: String? { "\(call): \(String(cString: strerror(code)))" }
}
