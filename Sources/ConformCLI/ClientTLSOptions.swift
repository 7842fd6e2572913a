import ConformCore
import ConformCurl

/// `--cacert`, `--cert`, `--key`, `--http1.1` and `--insecure` of a command that sends over HTTP(S), with the CA
/// file from `CURL_CA_BUNDLE` or `SSL_CERT_FILE` when `--cacert` is not given.
enum ClientTLSOptions {
    static func parse(_ parsed: Arguments, subcommand: String, io: CommandIO) throws(UsageError) -> ClientTLS {
        if parsed.value("--key") != nil && parsed.value("--cert") == nil {
            throw UsageError(
                message: "--key is the key of a --cert client certificate; add --cert FILE", subcommand: subcommand)
        }
        return ClientTLS(
            insecure: parsed.has("--insecure"),
            caFile: (parsed.value("--cacert") ?? ClientTLS.caFile(fromEnvironment: io.environment)).map(io.resolve),
            certificateFile: parsed.value("--cert").map(io.resolve), keyFile: parsed.value("--key").map(io.resolve),
            http2: !parsed.has("--http1.1"))
    }
}
