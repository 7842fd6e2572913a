import Foundation

/// An HTTP request as a value: method, absolute URL (or origin-form target), ordered headers and raw body.
public struct HTTPRequest: Sendable, Hashable {
    public var method: HTTPMethod
    /// Absolute (`http://host:port/path?query`) or origin-form (`/path?query`).
    public var url: String
    public var headerFields: HTTPFields
    public var body: Data
    /// How long the exchange may take before the transport gives up; `nil` uses the transport's default.
    public var timeout: Duration?

    public init(
        method: HTTPMethod, url: String, headerFields: HTTPFields = [:], body: Data = Data(), timeout: Duration? = nil
    ) {
        self.method = method
        self.url = url
        self.headerFields = headerFields
        self.body = body
        self.timeout = timeout
    }

    /// The origin-form target: path plus `?query` when present.
    public var target: String { URLParts(url).target }
    /// The path without the query, percent-encoding kept as sent.
    public var path: String { URLParts(url).path }
    /// The raw query string without `?`, or `nil`.
    public var query: String? { URLParts(url).query }
    /// Query parameters in order, percent-decoded; `+` is not treated as a space.
    public var queryItems: [(name: String, value: String)] { URLParts(url).queryItems }

    /// The first value of the query parameter `name`.
    public func queryValue(_ name: String) -> String? { URLParts.queryValue(name, in: url) }

    /// The method the server should act on: `X-HTTP-Method-Override` on a POST wins (Android PATCH).
    public var effectiveMethod: HTTPMethod {
        if method == .post, let override = headerFields["X-HTTP-Method-Override"], !override.isEmpty {
            return HTTPMethod(override)
        }
        return method
    }
}

/// An HTTP response as a value: status, ordered headers, raw body and, when a network transport made it, timings.
///
/// Two responses are equal when they answer alike: status, header fields and body. ``timing`` says how the
/// exchange went on the wire, which no comparison judges, so it is kept outside equality and hashing.
public struct HTTPResponse: Sendable, Hashable {
    public var status: HTTPStatus
    public var headerFields: HTTPFields
    public var body: Data
    public var timing: HTTPTiming?
    /// The HTTP version the response came in (`HTTP/1.1`, `HTTP/2`) when a network transport knows it.
    public var httpVersion: String?
    /// Set by a server-side handler that means to close the connection without answering (a reset injected on
    /// purpose, `--client-faults reset`): the server sends nothing and closes it. No network transport sets it, and,
    /// like ``timing``, it is outside equality.
    public var dropsConnection = false

    public init(status: HTTPStatus, headerFields: HTTPFields = [:], body: Data = Data(), timing: HTTPTiming? = nil) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
        self.timing = timing
    }

    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.status == rhs.status && lhs.headerFields == rhs.headerFields && lhs.body == rhs.body
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(headerFields)
        hasher.combine(body)
    }

    /// A response with a JSON body and `Content-Type: application/json`.
    public static func json(_ status: HTTPStatus, _ value: JSONValue, headers: HTTPFields = [:]) -> HTTPResponse {
        var fields = headers
        fields["Content-Type"] = "application/json"
        let body = Data(value.compactUTF8())
        fields["Content-Length"] = String(body.count)
        return HTTPResponse(status: status, headerFields: fields, body: body)
    }

    /// An empty response with `Content-Length: 0`.
    public static func empty(_ status: HTTPStatus) -> HTTPResponse {
        HTTPResponse(status: status, headerFields: ["Content-Length": "0"])
    }
}

/// Where the time of one exchange went, in seconds, as reported by the transport.
public struct HTTPTiming: Sendable, Hashable {
    public var total: Double
    public var connect: Double
    public var firstByte: Double
    /// Whether the exchange reused an open connection.
    public var reusedConnection: Bool

    public init(total: Double, connect: Double = 0, firstByte: Double = 0, reusedConnection: Bool = false) {
        self.total = total
        self.connect = connect
        self.firstByte = firstByte
        self.reusedConnection = reusedConnection
    }
}
