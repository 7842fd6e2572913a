import ConformFlowCheck
import ConformTraffic

/// The declarations of the commands about recorded traffic: `record`, `replay`, `diff`, `check`, `import`,
/// `export`, `scan`.
extension CommandSpec {
    static let noise = OptionSpec(
        "--noise", "FILE", .text(.file), usage: true, help: "Noise rules (YAML) for volatile fields and headers.")
    static let noDefaultNoise = OptionSpec(
        "--no-default-noise",
        help: """
            Compare what the protocol documents as differing on every run too (the send
            time of a push, sendDateTime), which replay and diff otherwise ignore.
            """)
    static let redact = OptionSpec(
        "--redact", "FILE", .text(.file),
        help: "Extra redaction rules (YAML: headers, jsonPaths, patterns; docs/recordings.md).")
    static let noRedact = OptionSpec(
        "--no-redact", help: "Keep secrets as they are (never for traffic that leaves your machine).")

    static let record = CommandSpec(
        name: "record", abstract: "Record real traffic through a reverse or forward proxy (redacted by default).",
        overview:
            "Record real traffic through a reverse proxy, or a forward proxy, into a recording (redacted by default).",
        options: [
            OptionSpec(
                "--upstream", "URL", .text(), repeatable: true, usage: true,
                usageValue: "URL|mobile=URL|backend=URL",
                help: """
                    Forward every request to URL; or name the upstreams: mobile=URL (paths under
                    /mobile/) and backend=URL (the rest). Repeatable; required without --forward.
                    """),
            OptionSpec(
                "--forward", usage: true,
                help: """
                    Be a forward proxy (the app's or the device's HTTP proxy) instead: CONNECT to an
                    allowed host is opened with a leaf from the local CA and recorded (docs/devices.md).
                    """),
            OptionSpec(
                "--allow-host", "HOST", .text(), repeatable: true,
                help: """
                    With --forward: a host to open and record, HOST (port 443 through CONNECT, 80 for
                    plain HTTP) or HOST:PORT (repeatable; at least one).
                    """),
            OptionSpec(
                "--other-hosts", "refuse|tunnel[:PORTS]", .text(.words(["refuse", "tunnel", "tunnel:"])),
                help: """
                    With --forward: refuse other hosts (403, the default) or pass CONNECT to them
                    through undecrypted and unrecorded: tunnel to port 443 only, tunnel:443,8443 to
                    the ports named. Never to an address of this machine (loopback, link-local, its
                    interfaces); an allowed host reached by its address is opened as that host.
                    """),
            OptionSpec(
                "--out", "DIRECTORY", .text(.directory), required: true,
                help: "The recording to write (exchanges.jsonl + meta.json)."),
            OptionSpec(
                "--listen", "HOST:PORT", .text(), usage: true,
                help: "Where the proxy listens (default: 127.0.0.1:0, any free port; printed)."),
            redact, noRedact,
            OptionSpec("--append", help: "Add to an existing recording."),
            OptionSpec(
                "--check", usage: true,
                help: "Also check the traffic against the flow's rules and report violations live."),
            ClientFaultsOption.spec,
            ClientFaultsOption.seedSpec,
        ] + applicationCodeOptions(usage: false) + [
            .report(
                """
                With --check: also write a report of the check when the proxy stops: junit:FILE,
                json:FILE or html:FILE (repeatable).
                """),
            .timeout("How long an upstream may take (default: 30; at most 24h)."),
            .maxBody(
                """
                The largest upstream response body (default: 64MB); a larger one is answered
                with 502 and recorded as such.
                """),
            OptionSpec("--insecure", help: "Accept any TLS certificate from the upstreams."),
            OptionSpec(
                "--cacert", "FILE", .text(.file),
                help: """
                    Trust the CAs in this PEM file for the upstreams instead of the system's
                    (default: the file CURL_CA_BUNDLE or SSL_CERT_FILE names, when set).
                    """),
            .clientCert, .clientKey, .http11,
        ] + OptionSpec.listenerTLS + [.maxHead, .help],
        discussion: """
            The app's test harness posts app events (login, logout, sessionExpired, appUpdated,
            personalizeFailed) to POST /_conform/events on the proxy: they are recorded among the exchanges
            and never forwarded (docs/recordings.md, App events).
            """)

    static let replay = CommandSpec(
        name: "replay", abstract: "Replay a recording against an implementation and diff the responses.",
        overview: "Replay a recording against an implementation and diff each response against the recorded one.",
        arguments: [
            ArgumentSpec(
                name: "RECORDING", help: "A recording directory, an exchanges.jsonl file, or a HAR file.",
                optional: false, repeatable: false)
        ],
        options: [
            OptionSpec(
                "--target", "TARGET", .text(.words(["builtin", "http://", "https://", "exec:"])), usage: true,
                usageValue: "URL|builtin|exec:CMD", help: "builtin (default), an http(s) URL, or exec:CMD."),
            noise,
            noDefaultNoise,
            OptionSpec(
                "--learn-noise", "FILE", .text(.file),
                help: """
                    Replay twice, propose rules for fields that differ between identical runs,
                    and write them to FILE for review.
                    """),
            OptionSpec(
                "--host-header", "VALUE", .text(),
                help: """
                    The Host header to send (default: the target's host and port, never the recorded
                    one), for a backend behind an ingress or load balancer that routes on another name.
                    """),
            OptionSpec(
                "--map", "OLD=NEW", .text(), repeatable: true, usage: true,
                help: """
                    Replace a value before sending (e.g. a pseudonymised application code by the
                    target's real one). Repeatable. The environment's CONFORM_MAP_<ANY>=OLD=NEW
                    gives one pair each, out of ps; --map wins.
                    """),
            OptionSpec(
                "--fresh-identities", "PREFIX", .flagOrInlineValue,
                help: """
                    Give this run persons of its own: every externalUserId, externalId, email and
                    phone is rewritten alike in requests and expected answers (PREFIX: 1 to 32
                    letters, digits or -; default: a fresh one per run), so the same recording
                    replays any number of times against one long-lived target.
                    """),
            OptionSpec(
                "--credential", "ROLE=VALUE", .text(), repeatable: true, usage: true,
                help: """
                    Send VALUE wherever the recording holds the pseudonym of the credential
                    role ROLE (appCode, apiKey: as meta.json names them); also from
                    CONFORM_CREDENTIAL_<ROLE>. Never written to a report. Repeatable.
                    jwtSecret=HEX (and jwtKeyId=KID) re-signs redacted Bearer tokens.
                    """),
            OptionSpec("--sequential", help: "Replay in recorded order instead of device flows concurrently."),
            .insecure, .cacert, .clientCert, .clientKey, .http11,
            .timeout("How long one exchange may take (default: 10; at most 24h)."),
            .maxBody("The largest response body read (default: 64MB); a larger one fails the exchange."),
            .retry,
            OptionSpec(
                "--connections", "N", .integer(1...256),
                help: "HTTP connections to an http(s) target, 1 to 256 (default: 8)."),
            OptionSpec(
                "--speed", "X|max", .text(.words(["max"])),
                help: """
                    Keep the recorded pacing scaled by X (2: twice as fast, 0.5: half speed;
                    0.001 to 10000); max (default) sends as fast as flows allow.
                    """),
            OptionSpec(
                "--rate", "N/s", .text(),
                help: """
                    Send N exchanges per second (0.001 to 1000000), whatever the recorded pace.
                    With --speed or --rate the summary gives the rate reached, latency
                    percentiles (p50, p90, p99) and how far the replay fell behind its schedule.
                    """),
            OptionSpec(
                "--shard", "K/N", .text(),
                help: """
                    Replay only shard K of N (1 <= K <= N <= 1000): whole groups of device flows
                    that share a person, with the backend calls about them (docs/sharding.md).
                    """),
            OptionSpec("--quiet", help: "No progress line (shown only on a terminal)."),
            .report(
                """
                Also write a report: junit:FILE, json:FILE or html:FILE (repeatable); one
                test case per exchange, grouped by device flow.
                """, usage: false),
            .help,
        ],
        discussion: """
            Identifiers the target mints (pushRegId, messageId, bulkId) are mapped from recorded to live values and
            substituted into every later request and expectation. Exit 0 when every response matches, 1 otherwise.
            """)

    static let diff = CommandSpec(
        name: "diff", abstract: "Run the same exchanges against two implementations and compare.",
        overview: "Run the same exchanges against two implementations and report where they differ, step by step.",
        arguments: [
            ArgumentSpec(
                name: "SUITES_OR_RECORDINGS",
                help: """
                    Suite files or directories, or recordings (default: ./suites, in the current
                    directory only; unlike run, never the suites installed beside conform).
                    """)
        ],
        options: [
            OptionSpec(
                "--target", "TARGET", .text(.words(["builtin", "http://", "https://", "exec:"])), repeatable: true,
                usage: true, usageValue: "A|B", help: "Exactly two: builtin, an http(s) URL or exec:CMD."),
            .faults("A reference fault for the first builtin target (repeatable).", option: "--fault-a"),
            .faults("A reference fault for the second builtin target (repeatable).", option: "--fault-b"),
            OptionSpec(
                "--noise", "FILE", .text(.file), usage: true, help: "Noise rules (YAML) for recordings and responses."),
            noDefaultNoise,
            OptionSpec(
                "--fresh-identities", "PREFIX", .flagOrInlineValue,
                help: """
                    For recordings: give this run persons of its own on both sides, rewritten as
                    replay --fresh-identities rewrites them (PREFIX: 1 to 32 letters, digits or -).
                    """),
            .variables("Suite variables (repeatable); also CONFORM_VAR_NAME, which --var overrides."),
            OptionSpec(
                "--map", "OLD=NEW", .text(), repeatable: true,
                help: """
                    Value substitutions for recordings (repeatable); also the environment's
                    CONFORM_MAP_<ANY>=OLD=NEW, one pair each, which --map overrides.
                    """),
            .report(
                """
                Also write a report: junit:FILE, json:FILE or html:FILE (repeatable); one
                test case per step or exchange, B's answer against A's.
                """, usage: false),
            .timeout("How long one exchange may take, on either side (default: 10; at most 24h)."),
            .retry,
        ] + [OptionSpec.insecure] + OptionSpec.clientTLS + [.help])

    static let check = CommandSpec(
        name: "check", abstract: "Check an app's recorded traffic against the flow's rules.",
        overview: "Check an app's recorded traffic against the flow's rules (client-side conformance).",
        arguments: [
            ArgumentSpec(
                name: "RECORDING_OR_HAR", help: "Recordings or HAR files of the app's traffic.", optional: false)
        ],
        options: [
            OptionSpec(
                "--events", "FILE", .text(.file), usage: true,
                help: """
                    App events written by the app's test harness (JSON lines: event, at,
                    pushRegId, externalUserId), placed among the exchanges by time.
                    """)
        ] + applicationCodeOptions + [
            OptionSpec(
                "--disable", "RULE", .text(.words(ConformCommand.profile.flowRules.map(\.id))), repeatable: true,
                help: "Skip a rule by id (repeatable)."),
            OptionSpec(
                "--verbose",
                help: "List every rule with the records it was judged at, not only those that did not pass."),
            .report(
                """
                Also write a report: junit:FILE, json:FILE or html:FILE (repeatable); one
                test case per trace and rule, grouped by flow step.
                """),
            .help,
        ],
        discussion: """
            Every violation names the exchange (or app event), the flow step it breaks (as the suites name them:
            1-registration … 8-hygiene), and how to fix it. App events recorded by 'record' or 'serve --check', or
            kept in a HAR's log._conformEvents, are used as well; the rules about logout, session expiry, login and
            app update stay silent without events. A note lists what events asked for and the trace did not show
            yet. Exit 0 when there is no violation.
            """)

    /// `--restricted`, `--restricted-access` and `--jwt`: of `check` (in its usage line), `record --check` and
    /// `serve --check`.
    static func applicationCodeOptions(usage: Bool) -> [OptionSpec] {
        applicationCodeOptions.map { option in
            var option = option
            option.inUsage = usage && option.inUsage
            return option
        }
    }

    static let applicationCodeOptions = [
        OptionSpec(
            "--restricted", "APPCODE", .text(), repeatable: true, usage: true,
            help: """
                An application code that restricts personal-data updates from the app
                (default: the reference's); in clear, or as the pseudonym a redacted
                recording holds for it. Also CONFORM_RESTRICTED (comma-separated).
                """),
        OptionSpec(
            "--restricted-access", "APPCODE", .text(), repeatable: true,
            help: """
                An application code that also restricts reading the user (M7) from the app
                (default: the reference's). Also CONFORM_RESTRICTED_ACCESS (comma-separated).
                """),
        OptionSpec(
            "--jwt", "APPCODE", .text(), repeatable: true, usage: true,
            help: """
                An application code in JWT mode (default: the reference's). Also CONFORM_JWT
                (comma-separated).
                """),
    ]

    static let importHAR = CommandSpec(
        name: "import", abstract: "Import a HAR file or a packet capture as a recording.",
        overview: """
            Import a HAR 1.2 file (browser devtools, Charles, Proxyman, mitmproxy) or a packet capture
            (pcap, pcapng: tcpdump, Wireshark) as a recording; the format is told by content.
            """,
        arguments: [
            ArgumentSpec(
                name: "FILE", help: "The HAR file, or the pcap/pcapng capture.", optional: false, repeatable: false)
        ],
        options: [
            OptionSpec(
                "--out", "DIRECTORY", .text(.directory), required: true, help: "The recording to write."),
            capturePort, captureFilter, captureUpstream,
            captureResync, noRedact, redact, .help,
        ],
        discussion: """
            From a capture, TCP streams are put back in order in both directions and read as HTTP/1.1;
            streams that cannot be read (TLS, HTTP/2, no SYN captured, lost segments) are reported one
            by one, never guessed (docs/recordings.md, From a capture), unless --resync is given. An
            import that reads no exchange exits 2 and says what the capture held.
            """)

    static let capturePort = OptionSpec(
        "--port", "N", .integer(1...65_535), repeatable: true, usage: true,
        help: """
            Read only streams to this server port (the port the SYN went to; without a SYN, the
            end of the stream on it is the server). Repeatable.
            """)
    static let captureResync = OptionSpec(
        "--resync", usage: true,
        help: """
            Read a stream the capture began inside (no SYN: the client connected before the capture
            started), or that lost segments, from its first whole request line and the response
            after it; those exchanges are marked resynchronised.
            """)
    static let captureFilter = OptionSpec(
        "--filter", "BPF", .text(), help: "A BPF filter applied to the packets first, as tcpdump takes it.")
    static let captureUpstream = OptionSpec(
        "--upstream", "NAME=HOST:PORT", .text(), repeatable: true,
        help: """
            Name the API a server endpoint serves (mobile=10.0.0.5:8080); other streams are
            named by path (/mobile/ is mobile, the rest backend). Repeatable.
            """)

    static let capture = CommandSpec(
        name: "capture", abstract: "Record traffic from a network interface, without a proxy (needs CAP_NET_RAW).",
        overview: """
            Record the HTTP/1.1 traffic of a server port from a live interface into a recording, passively
            (libpcap; needs CAP_NET_RAW).
            """,
        options: [
            OptionSpec(
                "--interface", "IF", .text(), required: true, help: "The interface to capture on (lo, eth0, any)."),
            capturePort,
            OptionSpec(
                "--out", "DIRECTORY", .text(.directory), required: true,
                help: "The recording to write (exchanges.jsonl + meta.json)."),
            OptionSpec(
                "--duration", "SECONDS", .duration(.milliseconds(100)...Duration.seconds(7 * 86_400)), usage: true,
                help: "Stop after this long (default: until interrupted)."),
            captureFilter, captureUpstream, captureResync, redact, noRedact,
            OptionSpec("--append", help: "Add to an existing recording."),
            OptionSpec(
                "--check", usage: true,
                help: "Also check the traffic against the flow's rules and report violations live."),
        ] + applicationCodeOptions(usage: false) + [
            .report(
                """
                With --check: also write a report of the check when the capture stops:
                junit:FILE, json:FILE or html:FILE (repeatable).
                """),
            .help,
        ],
        discussion: """
            Memory is bounded per stream and in all (docs/hostile-input.md, Packet captures); on exit a
            summary says what was captured, what the kernel dropped and which streams could not be read.
            """)

    static let exportHAR = CommandSpec(
        name: "export", abstract: "Export a recording as HAR.",
        overview: "Export a recording as HAR 1.2 (to standard output, or --out FILE.har).",
        arguments: [
            ArgumentSpec(
                name: "RECORDING", help: "A recording directory or .jsonl file.", optional: false, repeatable: false)
        ],
        options: [
            OptionSpec(
                "--out", "FILE.har", .text(.file), usage: true, help: "Where to write (default: standard output)."),
            .help,
        ])

    static let scan = CommandSpec(
        name: "scan", abstract: "Find unredacted secrets in files.",
        overview: "Find unredacted secrets (emails, phone numbers, App keys, JWTs, push tokens) in files.",
        arguments: [ArgumentSpec(name: "PATHS", help: "Files or directories to scan.", optional: false)],
        options: [
            .report(
                """
                Also write a report: junit:FILE, json:FILE or html:FILE (repeatable); one test
                case per finding, or per file without any.
                """),
            .help,
        ],
        discussion: "Exit 1 when anything is found: use it as a CI gate against leaks in recordings.")
}
