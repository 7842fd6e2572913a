import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A trace of any format copied record by record: into a recording (`conform import`), or out as HAR 1.2
/// (`conform export`). Either holds one record at a time, whatever the trace's size.
extension Trace {
    /// How many records a copy carried.
    public struct Copied: Sendable, Hashable {
        public var exchanges = 0
        public var events = 0

        public init(exchanges: Int = 0, events: Int = 0) {
            self.exchanges = exchanges
            self.events = events
        }
    }

    /// Copies every record into the recording `open` makes, which is opened only once the trace's first record was
    /// read (a HAR is checked whole first): a trace that cannot be read leaves no recording behind. A redacted
    /// trace's pseudonyms keep their roles in the new recording's metadata.
    public func copy(
        into open: () throws -> RecordingWriter, onWarning: (@Sendable (TraceWarning) -> Void)? = nil
    ) throws -> Copied {
        var records = self.records(onWarning: onWarning).makeAsyncIterator()
        var next = try records.nextRecord()
        let writer = try open()
        try writer.adopt(credentials: redactedCredentials())
        var copied = Copied()
        while let record = next {
            switch record {
            case .exchange(let e):
                try writer.write(e)
                copied.exchanges += 1
            case .event(let e):
                try writer.append(event: e)
                copied.events += 1
            }
            next = try records.nextRecord()
        }
        writer.close()
        return copied
    }

    /// Writes the trace as HAR 1.2, entry by entry as it is read, to the file `path` (written beside it and renamed
    /// when complete, so a failed export leaves no partial file), or to `standardOutput` when `path` is `nil`.
    public func exportHAR(
        to path: String?, version: String, onWarning: (@Sendable (TraceWarning) -> Void)? = nil,
        standardOutput: (String) -> Void
    ) throws -> Copied {
        let credentials = try redactedCredentials()
        var file: (temporary: String, handle: FileHandle)?
        if let path {
            let temporary = path + ".\(getpid()).tmp"
            guard FileManager.default.createFile(atPath: temporary, contents: nil),
                let handle = FileHandle(forWritingAtPath: temporary)
            else {
                throw RecordingError(
                    file: path, message: "cannot create the HAR file", help: "check the path and permissions")
            }
            file = (temporary, handle)
        }
        do {
            let copied = try writeHAR(credentials: credentials, version: version, onWarning: onWarning) { text in
                guard let handle = file?.handle else { return standardOutput(text) }
                do {
                    try handle.write(contentsOf: Data(text.utf8))
                } catch {
                    throw RecordingError(
                        file: path ?? "", message: "cannot write the HAR file (\(error))",
                        help: "check free disk space and permissions")
                }
            }
            if let file, let path {
                try file.handle.close()
                guard rename(file.temporary, path) == 0 else {
                    throw RecordingError(
                        file: path, message: "cannot write (\(String(cString: strerror(errno))))",
                        help: "check the path and permissions")
                }
            }
            return copied
        } catch {
            if let file {
                try? file.handle.close()
                unlink(file.temporary)
            }
            throw error
        }
    }

    /// The HAR text in pieces of about 1 MiB, handed to `write` as they fill.
    private func writeHAR(
        credentials: [RedactedCredential], version: String, onWarning: (@Sendable (TraceWarning) -> Void)?,
        write: (String) throws -> Void
    ) throws -> Copied {
        var pending = ""
        var exporter = HAR.Exporter(credentials: credentials, version: version) { pending += $0 }
        var records = self.records(onWarning: onWarning).makeAsyncIterator()
        var copied = Copied()
        while let record = try records.nextRecord() {
            switch record {
            case .exchange(let e):
                exporter.add(e)
                copied.exchanges += 1
            case .event(let e):
                exporter.add(e)
                copied.events += 1
            }
            if pending.utf8.count >= 1 << 20 {
                try write(pending)
                pending = ""
            }
        }
        exporter.finish()
        if !pending.isEmpty { try write(pending) }
        return copied
    }
}
