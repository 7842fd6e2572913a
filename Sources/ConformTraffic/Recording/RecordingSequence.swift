/// A recording as an `AsyncSequence` of exchanges, read lazily line by line: ``TraceSequence`` without the app events.
public struct RecordingSequence: AsyncSequence, Sendable {
    public typealias Element = RecordedExchange
    /// The exchanges and app events this sequence filters.
    public let records: TraceSequence

    public var path: String { records.path }
    /// Called once if the file ends with a torn line, and once for each line skipped for a limit.
    public var onTruncatedTail: (@Sendable (RecordingError) -> Void)? { records.onTruncatedTail }

    public init(
        path: String, onTruncatedTail: (@Sendable (RecordingError) -> Void)? = nil,
        onSkipped: (@Sendable (RecordingError) -> Void)? = nil
    ) {
        records = TraceSequence(path: path, onTruncatedTail: onTruncatedTail, onSkipped: onSkipped)
    }

    public func makeAsyncIterator() -> Iterator { Iterator(records: records.makeAsyncIterator()) }

    /// Skips the app events of the one record iterator.
    public struct Iterator: AsyncIteratorProtocol {
        var records: TraceSequence.Iterator

        public mutating func next() async throws -> RecordedExchange? {
            while let record = try await records.next() {
                if case .exchange(let exchange) = record { return exchange }
            }
            return nil
        }
    }
}
