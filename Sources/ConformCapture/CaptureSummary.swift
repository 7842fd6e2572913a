/// What a capture held and what could not be read from it, stream by stream.
public struct CaptureSummary: Sendable, Hashable {
    /// Why a stream, or part of it, was not read.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        public var kind: Kind
        public var detail: String

        public var description: String { detail }

        /// Open set of kinds.
        public struct Kind: Sendable, Hashable, CustomStringConvertible {
            public var name: String
            public init(_ name: String) { self.name = name }
            public var description: String { name }

            /// TLS records: the bytes are encrypted.
            public static let tls = Kind("tls")
            /// The HTTP/2 connection preface.
            public static let http2 = Kind("http2")
            /// Bytes that are no HTTP/1.x message, or break its framing.
            public static let notHTTP = Kind("not-http")
            /// The capture began after the stream's SYN, so where its messages start is unknown.
            public static let missingStart = Kind("missing-start")
            /// Segments that never came: the stream is read up to the first of them.
            public static let lost = Kind("lost-segments")
            /// The capture ended, or the stream was reset or went idle, inside a message.
            public static let cutOff = Kind("cut-off")
            /// A limit of ``CaptureLimits`` was reached.
            public static let overLimit = Kind("over-limit")
            /// `101 Switching Protocols` or `CONNECT`: what follows is another protocol.
            public static let upgraded = Kind("upgraded")
            /// Segments that overlapped bytes seen before with other bytes; the first copy was read.
            public static let overlapConflict = Kind("overlap-conflict")
        }
    }

    /// One stream that had a problem.
    public struct Stream: Sendable, Hashable, CustomStringConvertible {
        /// 1-based, in the order the streams were first seen.
        public var number: Int
        public var client: Endpoint
        public var server: Endpoint
        /// Exchanges read from the stream (before its problem).
        public var exchanges: Int
        public var problems: [Problem]
        /// Requests whose response never came, or was not read.
        public var unanswered: Int

        public var description: String {
            var text = "stream \(number) \(client) → \(server): \(exchanges) exchange\(exchanges == 1 ? "" : "s") read"
            if unanswered > 0 { text += ", \(unanswered) request\(unanswered == 1 ? "" : "s") without a response" }
            return text + "; " + problems.map(\.detail).joined(separator: "; ")
        }
    }

    /// A stream read after resynchronising (``CaptureOptions/resync``).
    public struct Resynchronised: Sendable, Hashable, CustomStringConvertible {
        /// The stream's number, as in ``Stream/number``.
        public var number: Int
        public var client: Endpoint
        public var server: Endpoint
        /// Exchanges read after resynchronising, each marked in the recording.
        public var exchanges: Int
        /// Why (`the capture began inside it (no SYN)`, `segments from the client lost at byte N`).
        public var reason: String
        /// Bytes skipped in each direction before the start lines found.
        public var skippedClientBytes: Int
        public var skippedServerBytes: Int

        public var description: String {
            "\(exchanges) exchange\(exchanges == 1 ? "" : "s") resynchronised in stream \(number) \(client) → "
                + "\(server): \(reason); \(skippedClientBytes) byte\(skippedClientBytes == 1 ? "" : "s") from the "
                + "client and \(skippedServerBytes) from the server skipped to the first whole request and its response"
        }
    }

    /// Packets read from the capture.
    public var packets = 0
    /// Packets that were not TCP over IPv4 or IPv6.
    public var otherPackets = 0
    /// IP fragments (not reassembled).
    public var fragments = 0
    /// Packets whose headers were cut off or inconsistent.
    public var malformedPackets = 0
    /// TCP segments outside the selected server ports.
    public var filteredSegments = 0
    /// TCP streams seen, each numbered in the order it was first seen: those followed from their SYN, and those
    /// the capture began inside (``streamsMissingStart``).
    public var streams = 0
    /// Exchanges read and written.
    public var exchanges = 0
    /// Streams the capture shows no start of (counted once each while there is room to tell them apart).
    public var streamsMissingStart = 0
    /// SYNs of streams not followed because ``CaptureLimits/maxStreams`` were open.
    public var streamsRefused = 0
    /// Duplicated or retransmitted segments dropped.
    public var duplicateSegments = 0
    /// Segments that arrived ahead of bytes before them and were put back in order.
    public var reorderedSegments = 0
    /// Segments that overlapped bytes seen before with different bytes; the first copy was read (as tshark does).
    public var conflictingSegments = 0
    /// Half-open streams (a SYN, no data yet) given up, oldest first, to follow a new one when
    /// ``CaptureLimits/maxStreams`` were open.
    public var halfOpenExpired = 0
    /// The work reassembly did in all: held out-of-order pieces visited, found and moved. It grows as n log n in the
    /// segments held, whatever order they came in; a test reads it to prove that without timing.
    public var reassemblySteps = 0
    /// Bytes that never came, in all streams.
    public var lostBytes: UInt64 = 0
    /// Payload bytes the capture's snapshot length cut off.
    public var truncatedBytes = 0
    /// The most bytes held in memory at once by all streams.
    public var peakBufferedBytes = 0
    /// Exchanges read after resynchronising, in all streams.
    public var resynchronisedExchanges = 0
    /// Streams with resynchronised exchanges, all of them.
    public var resynchronisedStreamCount = 0
    /// Those streams, in the order they ended (at most ``CaptureLimits/maxReportedStreams``).
    public var resynchronisedStreams: [Resynchronised] = []
    /// Streams with problems, in the order they ended (at most ``CaptureLimits/maxReportedStreams``).
    public var problemStreams: [Stream] = []
    /// Streams with problems by kind, all of them.
    public var problemCounts: [String: Int] = [:]
    /// Streams with at least one problem, all of them.
    public var streamsWithProblems = 0
    /// The kernel's drops in a live capture.
    public var kernelDropped: UInt32 = 0
    /// Why reading stopped early (a capture cut off inside a packet), if it did.
    public var readError: CaptureError?

    public init() {}

    /// Lines for a person: the totals, then each stream with a problem.
    public var lines: [String] {
        var out: [String] = []
        out.append(
            "\(packets) packet\(packets == 1 ? "" : "s"), \(streams) TCP stream\(streams == 1 ? "" : "s"), "
                + "\(exchanges) exchange\(exchanges == 1 ? "" : "s")")
        var facts: [String] = []
        if duplicateSegments > 0 { facts.append("\(duplicateSegments) duplicate or retransmitted segments dropped") }
        if reorderedSegments > 0 { facts.append("\(reorderedSegments) out-of-order segments put back in order") }
        if conflictingSegments > 0 {
            facts.append(
                "\(conflictingSegments) overlapping segments carried bytes that differ from the first copy "
                    + "(the first copy was read, as tshark does)")
        }
        if halfOpenExpired > 0 {
            facts.append("\(halfOpenExpired) half-open streams (SYN, no data) given up to follow newer ones")
        }
        if lostBytes > 0 { facts.append("\(lostBytes) bytes lost (never captured)") }
        if truncatedBytes > 0 { facts.append("\(truncatedBytes) bytes cut off by the snapshot length") }
        if fragments > 0 { facts.append("\(fragments) IP fragments not reassembled") }
        if malformedPackets > 0 { facts.append("\(malformedPackets) malformed packets") }
        if streamsMissingStart > 0 {
            facts.append("\(streamsMissingStart) stream\(streamsMissingStart == 1 ? "" : "s") without their start")
        }
        if streamsRefused > 0 { facts.append("\(streamsRefused) streams not followed (too many open)") }
        if kernelDropped > 0 { facts.append("\(kernelDropped) packets dropped by the kernel") }
        out += facts
        out += resynchronisedStreams.map(\.description)
        if resynchronisedStreamCount > resynchronisedStreams.count {
            out.append("… and \(resynchronisedStreamCount - resynchronisedStreams.count) more streams resynchronised")
        }
        let counts = problemCounts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        if !counts.isEmpty { out.append("unreadable or partly read streams: " + counts.joined(separator: ", ")) }
        out += problemStreams.map(\.description)
        let listed = problemStreams.count
        if streamsWithProblems > listed {
            out.append("… and \(streamsWithProblems - listed) more streams with problems")
        }
        return out
    }
}
