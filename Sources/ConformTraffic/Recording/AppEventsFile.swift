import ConformCore
import Foundation

/// An events file written by an app's test harness beside a HAR or recording: one JSON event per line
/// (`{"event":"logout","at":"2026-01-05T10:00:00.000Z","pushRegId":"…"}`), matched to the traffic by time.
public enum AppEventsFile {
    /// Most events one file may hold; a harness reports a handful per test.
    public static let maxEvents = 100_000
    /// Longest line accepted.
    public static let maxLineBytes = 64 << 10

    /// Reads every event, in file order; every problem names `file:line:col`.
    public static func load(path: String, displayName: String? = nil) throws(RecordingError) -> [AppEvent] {
        let name = displayName ?? path
        let lines: LineReader
        do {
            lines = try LineReader(path: path, maxLineBytes: maxLineBytes)
        } catch {
            throw RecordingError(
                file: name, message: "cannot open the events file",
                help: "pass a JSON-lines file of app events (docs/recordings.md, App events)")
        }
        var events: [AppEvent] = []
        var number = 0
        while true {
            let line: LineReader.Line?
            do {
                line = try lines.next()
            } catch {
                throw RecordingError(
                    file: name, line: number + 1, column: 1,
                    message: "line unreadable or longer than \(maxLineBytes) bytes",
                    help: "write one event object per line")
            }
            guard let line else { break }
            number += 1
            if line.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            guard events.count < maxEvents else {
                throw RecordingError(
                    file: name, line: number, column: 1, message: "more than \(maxEvents) events",
                    help: "split the events file by test run")
            }
            do {
                let value = try JSONValueLine.parse(line.bytes)
                events.append(try AppEvent(json: value))
            } catch {
                let location = error.path.map { " at \($0)" } ?? ""
                throw RecordingError(
                    file: name, line: number, column: error.column,
                    message: "invalid event\(location): \(error.message)",
                    help:
                        #"write one event per line, e.g. {"event":"logout","at":"2026-01-05T10:00:00.000Z","pushRegId":"…"}"#
                )
            }
        }
        return events
    }
}

/// Parses one JSON line, turning a syntax error into a ``RecordingLineError`` with its column; at most
/// ``RecordingLayout/maxLineValues`` values, so a line's tree stays small whatever the line holds.
enum JSONValueLine {
    static func parse(_ bytes: some Collection<UInt8>) throws(RecordingLineError) -> JSONValue {
        do {
            return try JSONValue.parse(Data(bytes), maxValues: RecordingLayout.maxLineValues)
        } catch {
            throw RecordingLineError(column: error.column, message: error.message, overLimit: error.isLimit)
        }
    }
}
