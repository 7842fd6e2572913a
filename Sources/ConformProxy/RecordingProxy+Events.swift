import ConformCore
import ConformTraffic
import Foundation

extension RecordingProxy {
    /// The reserved path on which an app's test harness posts app events; never forwarded upstream.
    public static let eventsPath = "/_conform/events"
    /// Largest events request accepted.
    public static let maxEventsBody = 64 << 10
    /// Most events one request may carry.
    public static let maxEventsPerRequest = 100

    /// Whether a request is for the reserved events path.
    public static func isEventsRequest(_ request: HTTPRequest) -> Bool {
        request.path == eventsPath || request.path == eventsPath + "/"
    }

    /// Records the events of `POST /_conform/events` (one event object, or an array of them) at their arrival, so
    /// they keep their place among the exchanges; answers 200 with what was recorded, or 4xx with the envelope.
    func receiveEvents(_ request: HTTPRequest, now: Date = Date()) -> HTTPResponse {
        guard request.method == .post else {
            var response = refusal(405, "METHOD_NOT_ALLOWED", "\(Self.eventsPath) takes POST")
            response.headerFields["Allow"] = "POST"
            return response
        }
        guard request.body.count <= Self.maxEventsBody else {
            return refusal(413, "PAYLOAD_TOO_LARGE", "an events request holds at most \(Self.maxEventsBody) bytes")
        }
        let value: JSONValue
        do {
            value = try JSONValue.parse(request.body)
        } catch {
            return refusal(400, "BAD_EVENT", "not JSON at column \(error.column): \(error.message)")
        }
        let items = value.arrayValue ?? [value]
        guard !items.isEmpty, items.count <= Self.maxEventsPerRequest else {
            return refusal(400, "BAD_EVENT", "send 1 to \(Self.maxEventsPerRequest) events")
        }
        var events: [AppEvent] = []
        for (i, item) in items.enumerated() {
            do {
                var event = try AppEvent(json: item, defaultTime: now)
                // Live events are ordered by arrival: the proxy's clock, like the exchanges' start times.
                event.at = ISOTimestamp.truncatedToMilliseconds(now)
                event.seq = 0
                events.append(event)
            } catch {
                let at = value.arrayValue == nil ? "" : "[\(i)]"
                let path = (error.path ?? "$").replacingOccurrences(of: "$", with: "$\(at)")
                return refusal(400, "BAD_EVENT", "\(path): \(error.message)")
            }
        }
        var recorded: [JSONValue] = []
        for event in events {
            do {
                let written = try writer.append(event: event)
                onEvent(written)
                recorded.append(written.json)
            } catch {
                onError("cannot record app event \(event.kind): \(error)")
                return refusal(500, "GENERAL_ERROR", "the recording could not be written")
            }
        }
        return .json(200, ["recorded": .array(recorded)])
    }

    /// The profile's error envelope, its text saying it comes from Conform.
    func refusal(_ status: Int, _ id: String, _ text: String) -> HTTPResponse {
        errorEnvelope.response(HTTPStatus(status), code: id, text: "conform: \(text)")
    }
}
