import ConformCore
import Foundation

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The recording file's own bytes: its end made clean before appending, and each line appended whole or not at all.
extension RecordingWriter {
    /// Makes the file end with a newline before appending, reading only its last line: a torn last line is cut
    /// off (and returned, to report), a complete one missing only its newline gets it.
    static func endCleanly(_ file: String, maxLineBytes: Int) throws(RecordingError) -> RecordingError? {
        guard let handle = FileHandle(forUpdatingAtPath: file) else {
            throw RecordingError(file: file, message: "cannot open for appending", help: "check permissions")
        }
        defer { try? handle.close() }
        do {
            let size = try handle.seekToEnd()
            guard size > 0 else { return nil }
            try handle.seek(toOffset: size - 1)
            if handle.readData(ofLength: 1) == Data([0x0A]) { return nil }
            // Find where the last line starts: after the last newline in the file.
            var end = size
            var lineStart: UInt64 = 0
            while end > 0 {
                let from = end >= 65536 ? end - 65536 : 0
                try handle.seek(toOffset: from)
                let chunk = handle.readData(ofLength: Int(end - from))
                if let newline = chunk.lastIndex(of: 0x0A) {
                    lineStart = from + UInt64(newline - chunk.startIndex) + 1
                    break
                }
                end = from
            }
            let length = size - lineStart
            var whole = false
            if length <= UInt64(maxLineBytes) {
                try handle.seek(toOffset: lineStart)
                let line = handle.readData(ofLength: Int(length))
                whole =
                    line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
                    || (try? TraceRecord(jsonLine: line)) != nil
            }
            if !whole {
                try handle.truncate(atOffset: lineStart)
                return RecordingError(
                    file: file,
                    message: "the last line was incomplete (\(length) bytes without a newline at byte \(lineStart)); "
                        + "removed before appending",
                    help: "the recorder was probably killed while writing; the exchanges before it are intact")
            }
            try handle.seekToEnd()
            try handle.write(contentsOf: Data([0x0A]))
            return nil
        } catch {
            throw RecordingError(
                file: file, message: "cannot repair the end of the file before appending (\(error))",
                help: "check free disk space and permissions")
        }
    }

    /// Appends one whole line, or nothing: a write that fails part-way is cut back to where the line began, so the
    /// file stays readable and a later line never joins a partial one.
    func write(_ line: [UInt8], into state: inout State) throws(RecordingError) {
        let fd = state.fd
        guard fd >= 0 else {
            throw RecordingError(file: file, message: "the writer is closed", help: "open a new RecordingWriter")
        }
        if let end = state.repairTo {
            guard ftruncate(fd, end) == 0 else {
                state.lost += 1
                throw RecordingError(
                    file: file,
                    message: "cannot remove a partial line left by an earlier failed write "
                        + "(\(String(cString: strerror(errno)))); this exchange is not recorded",
                    help: "check free disk space and permissions")
            }
            state.repairTo = nil
        }
        let total = line.count
        var offset = 0
        while offset < total {
            let n = line.withUnsafeBytes { output(fd, $0.baseAddress! + offset, total - offset) }
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                state.lost += 1
                var cut = "nothing of it was written"
                if offset > 0 {
                    // Only this writer appends (under the lock), so the line began `offset` bytes before the end.
                    let end = lseek(fd, 0, SEEK_END)
                    let start = end >= 0 ? end - off_t(offset) : -1
                    if start >= 0, ftruncate(fd, start) == 0 {
                        cut = "its partial line was removed"
                    } else {
                        state.repairTo = start >= 0 ? start : nil
                        cut = "its partial line is removed before the next write"
                    }
                }
                throw RecordingError(
                    file: file,
                    message: "write failed (\(String(cString: strerror(code)))): this exchange is not recorded; \(cut)",
                    help: "check free disk space and permissions")
            }
            offset += n
        }
    }
}
