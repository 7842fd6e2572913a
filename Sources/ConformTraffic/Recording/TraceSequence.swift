/// A recording as an `AsyncSequence` of exchanges and app events in file order, read lazily line by line.
public struct TraceSequence: AsyncSequence, Sendable {
    public typealias Element = TraceRecord
    public let path: String
    /// Called once if the file ends with a torn line.
    public let onTruncatedTail: (@Sendable (RecordingError) -> Void)?
    /// Called for each line skipped because it is not an exchange or app event (the rest is still read).
    public let onSkipped: (@Sendable (RecordingError) -> Void)?

    public init(
        path: String, onTruncatedTail: (@Sendable (RecordingError) -> Void)? = nil,
        onSkipped: (@Sendable (RecordingError) -> Void)? = nil
    ) {
        self.path = path
        self.onTruncatedTail = onTruncatedTail
        self.onSkipped = onSkipped
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(path: path, onTruncatedTail: onTruncatedTail, onSkipped: onSkipped)
    }

    /// Opens the file on the first call to `next()`.
    public struct Iterator: AsyncIteratorProtocol {
        let path: String
        let onTruncatedTail: (@Sendable (RecordingError) -> Void)?
        let onSkipped: (@Sendable (RecordingError) -> Void)?
        var reader: RecordingReader?
        var done = false

        public mutating func next() async throws -> TraceRecord? {
            if done { return nil }
            if reader == nil {
                reader = try RecordingReader(path: path)
                reader?.onSkipped = onSkipped
            }
            guard let reader else { return nil }
            if let record = try reader.nextRecord() { return record }
            done = true
            if let tail = reader.truncatedTail { onTruncatedTail?(tail) }
            return nil
        }
    }
}
