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
        let environment = ClientTLS.caFileAndSource(fromEnvironment: io.environment)
        let (bundle, certFile) = (io.environment["CURL_CA_BUNDLE"] ?? "", io.environment["SSL_CERT_FILE"] ?? "")
        if parsed.value("--cacert") == nil, !bundle.isEmpty, !certFile.isEmpty, bundle != certFile {
            // curl's order: the second file is silently ignored, which is never what the user meant.
            io.err.write(
                "warning: CURL_CA_BUNDLE (\(bundle)) and SSL_CERT_FILE (\(certFile)) name different CA files: "
                    + "CURL_CA_BUNDLE is used and SSL_CERT_FILE ignored, as curl does; unset one, or give --cacert\n")
        }
        var tls = ClientTLS(
            insecure: parsed.has("--insecure"),
            caFile: (parsed.value("--cacert") ?? environment?.file).map(io.resolve),
            certificateFile: parsed.value("--cert").map(io.resolve), keyFile: parsed.value("--key").map(io.resolve),
            http2: !parsed.has("--http1.1"))
        tls.caSource = parsed.value("--cacert") != nil ? "--cacert" : environment?.source
        return tls
    }
}
