/// TLS options, declared once: a listener's (`serve`, `mock`, `record`), a client's (`run`, `replay`, `diff`,
/// `record`'s upstreams), and the `ca` command.
extension OptionSpec {
    static let tls = OptionSpec(
        "--tls", usage: true,
        help: """
            Listen over HTTPS with a certificate from the local CA ('conform ca', made on
            first use) for the listen address, localhost, 127.0.0.1, ::1 and --tls-name.
            """)
    static let tlsCert = OptionSpec(
        "--tls-cert", "FILE", .text(.file),
        help: "Listen over HTTPS with this PEM certificate chain (leaf first; with --tls-key).")
    static let tlsKey = OptionSpec(
        "--tls-key", "FILE", .text(.file), help: "The PEM private key of --tls-cert (unencrypted).")
    static let tlsName = OptionSpec(
        "--tls-name", "NAME", .text(), repeatable: true,
        help: """
            Another DNS name or IP address for the --tls certificate, such as this machine's
            address on the network a phone uses (repeatable).
            """)
    static let tlsPort = OptionSpec(
        "--tls-port", "N", .integer(0...65_535),
        help: """
            Serve HTTPS on this port as well (0: any free port), and plain HTTP on the
            usual one; implies --tls unless --tls-cert is given.
            """)
    static let listenerTLS: [OptionSpec] = [tls, tlsCert, tlsKey, tlsName, tlsPort]
    /// The listener's request head limit (and with it the response head room).
    static let maxHead = OptionSpec(
        "--max-head", "SIZE", .size(1024...1024 * 1024),
        help: """
            The largest request head the listener accepts, 1KB to 1MB (default: 16KB;
            larger heads get 431); response heads may be twice as large (at least 16KB).
            """)

    static let cacert = OptionSpec(
        "--cacert", "FILE", .text(.file),
        help: """
            Trust the CAs in this PEM file instead of the system's (default: the file
            CURL_CA_BUNDLE or SSL_CERT_FILE names, when set).
            """)
    static let clientCert = OptionSpec(
        "--cert", "FILE", .text(.file), help: "Present this PEM client certificate (mutual TLS; with --key).")
    static let clientKey = OptionSpec(
        "--key", "FILE", .text(.file), help: "The PEM private key of --cert (default: in the --cert file).")
    static let http11 = OptionSpec(
        "--http1.1", help: "Speak HTTP/1.1 only (default: HTTP/2 when an HTTPS server offers it by ALPN).")
    static let clientTLS: [OptionSpec] = [cacert, clientCert, clientKey, http11]
}

extension CommandSpec {
    static let publicURL = OptionSpec(
        "--public-url", "URL", .text(),
        help: """
            The origin clients reach the reference by (https://api.example.com behind a
            TLS terminator): the base URL it announces (M12, New-Base-URL).
            """)
    static let trustForwarded = OptionSpec(
        "--trust-forwarded",
        help: """
            Take the announced base URL's scheme and host from X-Forwarded-Proto and
            X-Forwarded-Host (only behind a front you run, which sets both).
            """)

    static let ca = CommandSpec(
        name: "ca", abstract: "Make (once) and show the local CA that signs the HTTPS listeners' certificates.",
        overview: """
            Make the local certificate authority on first use, show its SHA-256 fingerprint, and export its
            certificate in the forms clients and devices take (never its key).
            """,
        options: [
            OptionSpec(
                "--out", "DIRECTORY", .text(.directory), usage: true,
                help: "Where the exports go (default: the CA's directory)."),
            OptionSpec(
                "--reset", help: "Remove the CA (its key too) and make a new one; trust the new one again."),
            .help,
        ],
        discussion: """
            The CA lives in $XDG_CONFIG_HOME/conform/ca (else ~/.config/conform/ca): ca-cert.pem, and ca-key.pem
            with mode 0600. Exports: conform-ca.pem (curl --cacert, Python, keytool), conform-ca.cer (DER,
            Android settings), HASH.0 (an Android system store), conform-ca.mobileconfig (iOS). Leaves it signs
            are valid for 7 days and are made when a listener starts (docs/tls.md).
            """)
}
