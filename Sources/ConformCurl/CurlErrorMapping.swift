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
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return (
                .tls,
                "the server's certificate is not trusted or not for this host: trust its CA with --cacert FILE "
                    + "(or SSL_CERT_FILE / CURL_CA_BUNDLE), or skip the check with --insecure (test servers only)"
            )
        case CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE:
            return (.tls, "the CA file cannot be read as PEM certificates; check the file given to --cacert")
        case CURLE_SSL_CERTPROBLEM:
            return (.tls, "the client certificate or key cannot be used; check the files given to --cert and --key")
        case CURLE_SSL_CLIENTCERT:
            return (.tls, "the server asks for a client certificate: give one with --cert FILE --key FILE")
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CIPHER, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_ENGINE_INITFAILED:
            return (
                .tls,
                "the TLS handshake failed (a server that is not HTTPS, refused a client certificate, or shares no "
                    + "protocol version); check the URL's scheme, --cert/--key, or --cacert/--insecure"
            )
        default:
            return (.other, "libcurl could not complete the exchange")
        }
    }
}
