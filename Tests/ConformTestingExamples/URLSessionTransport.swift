import ConformCore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The networking layer of an SDK under test, as a ``Transport``: Foundation's `URLSession`, set up to pass every
/// request and response through untouched, because the suites judge exactly what goes over the wire.
///
/// What it takes to keep `URLSession` out of the way:
/// - no cookies, no cache, no stored credentials: an ephemeral configuration with all three off;
/// - no redirects followed: the delegate refuses them, so a 3xx reaches the suites as it was sent;
/// - header fields appended one by one in order (`addValue`), so repeated fields are all sent;
/// - the body sent whenever the request has one; `URLSession` refuses one on GET, so that throws instead of sending
///   the request without it (no bundled suite sends one).
///
/// `URLSession` still adds fields of its own (``addedFieldNames``); the suites do not judge fields they did not
/// send. It asks for compressed responses and hands back the decompressed body. Response fields come back as a
/// dictionary, so their order, raw spelling and repeats are lost; the suites look fields up by name only.
struct URLSessionTransport: Transport {
    /// The request fields `URLSession` sends on its own (lower case), besides the ones the suites give.
    static let addedFieldNames: Set<String> = [
        "host", "user-agent", "accept", "accept-encoding", "accept-language", "content-length", "connection",
    ]

    let session: URLSession

    init(timeout: Duration = .seconds(10)) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.urlCredentialStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = Self.seconds(timeout)
        session = URLSession(configuration: configuration, delegate: RefusingRedirects(), delegateQueue: nil)
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let url = URL(string: request.url) else {
            throw TransportError(.other, "'\(request.url)' is not a URL URLSession accepts")
        }
        if request.method == .get, !request.body.isEmpty {
            throw TransportError(.other, "URLSession cannot send a body with GET; this transport cannot run this step")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        for field in request.headerFields { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        if !request.body.isEmpty { urlRequest.httpBody = request.body }
        if let timeout = request.timeout { urlRequest.timeoutInterval = Self.seconds(timeout) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError {
            throw TransportError(Self.kind(of: error), error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else {
            throw TransportError(.invalidResponse, "URLSession returned a response that is not HTTP")
        }
        var fields = HTTPFields()
        for (name, value) in http.allHeaderFields {
            fields.append(name: "\(name)", value: "\(value)")
        }
        return HTTPResponse(status: HTTPStatus(http.statusCode), headerFields: fields, body: data)
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    static func kind(of error: URLError) -> TransportError.Kind {
        switch error.code {
        case .timedOut: .timeout
        case .cannotConnectToHost: .connectionRefused
        case .networkConnectionLost: .connectionReset
        case .cannotFindHost, .notConnectedToInternet: .unreachable
        case .badServerResponse: .invalidResponse
        default: .other
        }
    }
}

/// Hands every redirect back to the caller instead of following it.
final class RefusingRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
