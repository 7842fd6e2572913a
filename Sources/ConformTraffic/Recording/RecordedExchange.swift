import ConformCore
import Foundation

/// One request and its response as kept in a recording: numbered, attributed to a device flow and an upstream.
public struct RecordedExchange: Sendable, Hashable {
    /// 1-based position in the recording; unique, increasing in file order.
    public var seq: Int
    /// The device the exchange belongs to (``ProtocolProfile/FlowKeys``: Mobile Messaging's pushRegId, or `backend`
    /// for backend calls about no device).
    public var flow: String
    /// Which upstream answered: the profile's base the path belongs to (Mobile Messaging's `mobile` or `backend`),
    /// or any name the recorder was given.
    public var upstream: String
    /// When the request started, to the millisecond.
    public var startedAt: Date
    /// How long the exchange took, in milliseconds.
    public var durationMs: Double
    public var request: HTTPRequest
    public var response: HTTPResponse
    /// What the recording could not keep (`response.body: 104857600 bytes, over the line limit`): an exchange with
    /// omissions cannot be judged on what is missing.
    public var omitted: [String] = []
    /// Whether the exchange was read from a packet capture after resynchronising on its TCP stream (`conform import
    /// --resync`): the capture began inside the connection, or lost bytes of it, and where the messages begin was
    /// found by their start lines rather than followed from the connection's first byte.
    public var resynchronised = false

    public init(
        seq: Int, flow: String, upstream: String, startedAt: Date, durationMs: Double, request: HTTPRequest,
        response: HTTPResponse, omitted: [String] = []
    ) {
        self.omitted = omitted
        self.seq = seq
        self.flow = flow
        self.upstream = upstream
        self.startedAt = ISOTimestamp.truncatedToMilliseconds(startedAt)
        self.durationMs = (durationMs * 1000).rounded() / 1000
        self.request = request
        self.response = response
    }
}
