/// What reading a capture may hold in memory, per stream and in all; past a limit a stream is reported and dropped,
/// never read partly as if whole.
public struct CaptureLimits: Sendable, Hashable {
    /// The longest message head (start line and header fields).
    public var maxHeadBytes = 64 << 10
    /// The most header fields in one message.
    public var maxHeaderFields = 256
    /// The largest body of one message, after the chunked coding is undone (before Content-Encoding is).
    public var maxMessageBytes = 16 << 20
    /// Bytes held per direction waiting for a segment before them; past it the missing bytes count as lost.
    public var maxOutOfOrderBytes = 1 << 20
    /// TCP streams followed at once; the SYN of one more is counted, not followed.
    public var maxStreams = 10_000
    /// Bytes held by all streams together (out-of-order segments, unread stream bytes, unanswered requests); past
    /// it the stream holding most is dropped.
    public var maxBufferedBytes = 256 << 20
    /// Seconds of capture time without a packet after which a stream is closed as cut off.
    public var idleSeconds: Double = 300
    /// Bytes of one direction looked through for where its messages begin, in a stream read with
    /// ``CaptureOptions/resync`` that the capture began inside (or after a gap); past it the stream is reported and
    /// not read.
    public var maxResyncBytes = 1 << 20
    /// Streams whose problems are listed one by one in the summary; the rest are counted.
    public var maxReportedStreams = 1000

    public init() {}

    /// The defaults.
    public static let `default` = CaptureLimits()
}
