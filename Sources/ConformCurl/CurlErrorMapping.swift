internal import CCurl
import ConformCore

/// Maps libcurl result codes to ``TransportError`` kinds with a message that names the request.
enum CurlErrorMapping {
    static func error(code: CURLcode, detail: String, method: String, url: String) -> TransportError {
        let (kind, hint) = classify(code)
        let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        return TransportError(kind, "\(method) \(url): \(reason) (curl error \(code.rawValue)); \(hint)")
    }

    static func classify(_ code: CURLcode) -> (TransportError.Kind, String) {
        switch code {
        case CURLE_COULDNT_CONNECT:
            return (.connectionRefused, "check that the implementation is running and listening on that port")
        case CURLE_OPERATION_TIMEDOUT:
            return (.timeout, "the implementation did not answer in time; raise the timeout or check that it responds")
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING:
            return (.connectionReset, "the implementation closed the connection without a complete response")
        case CURLE_WEIRD_SERVER_REPLY, CURLE_PARTIAL_FILE, CURLE_UNSUPPORTED_PROTOCOL, CURLE_BAD_CONTENT_ENCODING,
            CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return (.invalidResponse, "the implementation's reply is not a valid HTTP/1.1 response")
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return (.unreachable, "check the host name in the base URL")
        case CURLE_URL_MALFORMAT:
            return (.other, "the URL is not valid; use an absolute http:// or https:// URL or set a base URL")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE:
            return (.other, "TLS failed; check the certificate or use the insecure option for self-signed test servers")
        default:
            return (.other, "libcurl could not complete the exchange")
        }
    }
}
