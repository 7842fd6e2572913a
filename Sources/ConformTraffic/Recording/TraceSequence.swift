/// A recording as an `AsyncSequence` of exchanges and app events in file order, read lazily line by line.
public struct TraceSequence: AsyncSequence, Sendable {
    public typealias Element = TraceRecord
    public let path: String
    /// Called once if the file ends with a torn line, and once for each line skipped for a limit.
    public let onTruncatedTail: (@Sendable (RecordingError) -> Void)?

    public init(path: String, onTruncatedTail: (@Sendable (RecordingError) -> Void)? = nil) {
        self.path = path
        self.onTruncatedTail = onTruncatedTail
    }

    public func makeAsyncIterator() -> Iterator { Iterator(path: path, onTruncatedTail: onTruncatedTail) }

    /// Opens the file on the first call to `next()`.
    public struct Iterator: AsyncIteratorProtocol {
        let path: String
        let onTruncatedTail: (@Sendable (RecordingError) -> Void)?
        var reader: RecordingReader?
        var done = false

        public mutating func next() async throws -> TraceRecord? {
            if done { return nil }
            if reader == nil { reader = try RecordingReader(path: path) }
            guard let reader else { return nil }
            if let record = try reader.nextRecord() { return record }
            done = true
            for line in reader.skipped { onTruncatedTail?(line) }
            if let tail = reader.truncatedTail { onTruncatedTail?(tail) }
            return nil
        }
    }
}
