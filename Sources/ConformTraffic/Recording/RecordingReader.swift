import Foundation

/// Reads `exchanges.jsonl` one exchange at a time with bounded memory; a torn last line, and any line that is not an
/// exchange or app event, is skipped and reported (``truncatedTail``, ``skipped``), and the rest is still read.
public final class RecordingReader {
    /// The file being read.
    public let file: String
    /// The torn last line left by a killed writer, once reading has reached it.
    public private(set) var truncatedTail: RecordingError?
    /// The 1-based number of the last line read.
    public private(set) var lineNumber = 0
    /// Lines that are not an exchange or app event (the first ``maxKeptSkips`` of them), skipped so that one bad
    /// record does not make the rest of the recording unreadable; ``skippedCount`` counts them all.
    public private(set) var skipped: [RecordingError] = []
    /// How many lines were skipped as unreadable.
    public private(set) var skippedCount = 0
    /// Called for each line skipped as unreadable, as reading meets it.
    public var onSkipped: ((RecordingError) -> Void)?
    /// Most skipped lines kept in ``skipped``.
    public static let maxKeptSkips = 100
    private let lines: LineReader

    /// Opens `recordings/NAME/exchanges.jsonl` given the recording directory, or a `.jsonl` file itself.
    public init(path: String, maxLineBytes: Int = RecordingLayout.maxLineBytes) throws(RecordingError) {
        var isDirectory: ObjCBool = false
        let inDirectory =
            FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
        let file = inDirectory ? (path as NSString).appendingPathComponent(RecordingLayout.exchangesFile) : path
        self.file = file
        if inDirectory {
            // The file a directory holds is opened inside it, through no link.
            do {
                lines = LineReader(
                    descriptor: try ConfinedFile.open(RecordingLayout.exchangesFile, in: path),
                    maxLineBytes: maxLineBytes)
            } catch {
                throw RecordingError(
                    file: file, message: "cannot open the recording (\(error))",
                    help: "a recording directory holds \(RecordingLayout.exchangesFile) as a regular file, not a link")
            }
            return
        }
        do {
            lines = try LineReader(path: file, maxLineBytes: maxLineBytes)
        } catch {
            throw RecordingError(
                file: file, message: "cannot open the recording (\(String(cString: strerror(Self.code(error)))))",
                help: "pass a recording directory containing \(RecordingLayout.exchangesFile), or the file itself")
        }
    }

    private static func code(_ failure: LineReader.Failure) -> Int32 {
        switch failure {
        case .open(let e), .read(let e): e
        case .lineTooLong: EFBIG
        }
    }

    /// The next exchange, or `nil` at the end (or at a torn last line, see ``truncatedTail``); app events are skipped.
    public func next() throws(RecordingError) -> RecordedExchange? {
        while let record = try nextRecord() {
            if case .exchange(let exchange) = record { return exchange }
        }
        return nil
    }

    /// The next exchange or app event, in file order, or `nil` at the end.
    public func nextRecord() throws(RecordingError) -> TraceRecord? {
        while true {
            let line: LineReader.Line?
            do {
                line = try lines.next()
            } catch {
                if case .lineTooLong(let limit) = error {
                    throw RecordingError(
                        file: file, line: lineNumber + 1, column: 1,
                        message: "line is longer than \(limit) bytes",
                        help: "raise the reader's maxLineBytes, or split the exchange's body")
                }
                throw RecordingError(
                    file: file, line: lineNumber + 1,
                    message: "read failed (\(String(cString: strerror(Self.code(error)))))",
                    help: "check that the file is readable")
            }
            guard let line else { return nil }
            lineNumber += 1
            if line.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            do {
                return try TraceRecord(jsonLine: line.bytes)
            } catch {
                if !line.terminated {
                    truncatedTail = RecordingError(
                        file: file, line: lineNumber, column: 1,
                        message: "the last line is incomplete (\(line.bytes.count) bytes without a newline); skipped",
                        help: "the recorder was probably killed while writing; the exchanges before it are intact")
                    return nil
                }
                let location = error.path.map { " at \($0)" } ?? ""
                let problem =
                    error.overLimit
                    ? RecordingError(
                        file: file, line: lineNumber, column: error.column,
                        message: "exchange skipped: \(error.message)",
                        help:
                            "a recorded exchange holds a few dozen values plus three per header field; the other lines are read"
                    )
                    : RecordingError(
                        file: file, line: lineNumber, column: error.column,
                        message: "invalid exchange\(location): \(error.message); this line is skipped",
                        help:
                            "each line must be one JSON exchange or app event as written by the recorder; fix or delete this line"
                    )
                skippedCount += 1
                if skipped.count < Self.maxKeptSkips { skipped.append(problem) }
                onSkipped?(problem)
            }
        }
    }
}

/// File names inside a recording directory.
public enum RecordingLayout {
    /// The exchanges, one JSON object per line.
    public static let exchangesFile = "exchanges.jsonl"
    /// Format version and redaction information.
    public static let metaFile = "meta.json"
    /// The longest line the writer writes and the reader reads (64 MiB): one limit, so every written line reads.
    public static let maxLineBytes = 64 << 20
    /// The most JSON values one line may hold (200,000): a written line has a few dozen plus three per header
    /// field (at most 1,000 per message), and the bound keeps a line's parsed tree within tens of megabytes
    /// whatever its 64 MiB are made of.
    public static let maxLineValues = 200_000
}
