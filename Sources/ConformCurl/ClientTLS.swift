/// How a client checks and presents TLS: which CAs it trusts, the client certificate it shows (mutual TLS), and
/// whether it offers HTTP/2 by ALPN.
public struct ClientTLS: Sendable, Hashable {
    /// Accept any certificate and host name (self-signed test servers).
    public var insecure: Bool
    /// A PEM file of the CAs to trust instead of the system's.
    public var caFile: String?
    /// Where ``caFile`` comes from (`--cacert`, `CURL_CA_BUNDLE`, `SSL_CERT_FILE`), for messages; `nil` when unsaid.
    public var caSource: String?
    /// A PEM client certificate, with ``keyFile``, for servers that ask for one.
    public var certificateFile: String?
    /// The PEM private key of ``certificateFile`` (the certificate's file when `nil`).
    public var keyFile: String?
    /// Offer HTTP/2 and HTTP/1.1 by ALPN on HTTPS (the server chooses); `false` speaks HTTP/1.1 only.
    public var http2: Bool

    public init(
        insecure: Bool = false, caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil,
        http2: Bool = true
    ) {
        self.insecure = insecure
        self.caFile = caFile
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.http2 = http2
    }

    /// The CA file from the environment, as curl and OpenSSL take it: `CURL_CA_BUNDLE`, else `SSL_CERT_FILE`.
    public static func caFile(fromEnvironment environment: [String: String]) -> String? {
        caFileAndSource(fromEnvironment: environment)?.file
    }

    /// The CA file from the environment and the variable that named it: `CURL_CA_BUNDLE`, else `SSL_CERT_FILE`.
    public static func caFileAndSource(fromEnvironment environment: [String: String]) -> (file: String, source: String)?
    {
        for name in ["CURL_CA_BUNDLE", "SSL_CERT_FILE"] {
            if let value = environment[name], !value.isEmpty { return (value, name) }
        }
        return nil
    }
}
