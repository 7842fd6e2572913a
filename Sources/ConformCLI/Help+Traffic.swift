extension Help {
    static let mock = """
        OVERVIEW: Play the server side of suites: match each request against the next step of a flow, answer
        with a response that satisfies the step's checks, and report what the client did not do.

        USAGE: \(usage("mock"))

        ARGUMENTS:
          SUITE.yaml              One suite: several suites start alike (a registration), so a server cannot
                                  tell which one a client plays; mock them one at a time.

        OPTIONS:
          --port N                The port (default: 0, any free port; the bound address is printed).
          --host ADDRESS          The address to listen on (default: 127.0.0.1).
          --var NAME=VALUE        Fix a suite variable (repeatable). Variables with generated defaults (fresh
                                  user ids, tokens) are otherwise bound to what the client sends.
          --until-done            Stop once every step has been played (otherwise on Ctrl-C).
          --timeout SECONDS       Stop after this long in any case (for CI: a client that hangs still ends).
          --report KIND:FILE      Also write a report: junit:FILE, json:FILE or html:FILE (repeatable); one
                                  test case per exchange step, and one per request no step accepted.
          -h, --help              Show help information.

        The client gets origin-form paths (`{{ mobile }}` and `{{ backend }}` are empty): point both base URLs
        at the printed address. Values the suites capture (a pushRegId) are minted here and expected back.
        Exit 0 when every step was played and no request was left unmatched, 1 otherwise.

        """

    static let record = """
        OVERVIEW: Record real traffic through a reverse proxy into a recording (redacted by default).

        USAGE: conform record --upstream URL|mobile=URL --upstream backend=URL --out recordings/NAME [--listen HOST:PORT]

        OPTIONS:
          --upstream URL          Forward every request to URL; or name the upstreams: mobile=URL (paths under
                                  /mobile/) and backend=URL (the rest). Repeatable.
          --out DIRECTORY         The recording to write (exchanges.jsonl + meta.json).
          --listen HOST:PORT      Where the proxy listens (default: 127.0.0.1:0, any free port; printed).
          --redact FILE           Extra redaction rules (YAML: headers, jsonPaths, patterns; docs/recordings.md).
          --no-redact             Keep secrets as they are (never for traffic that leaves your machine).
          --append                Add to an existing recording.
          --check                 Also check the traffic against the flow's rules and report violations live.
          --timeout SECONDS       How long an upstream may take (default: 30; at most 24h).
          --max-body SIZE         The largest upstream response body (default: 64MB); a larger one is answered
                                  with 502 and recorded as such.
          --insecure              Accept any TLS certificate from the upstreams.
          -h, --help              Show help information.

        The app's test harness posts app events (login, logout, sessionExpired, appUpdated) to
        POST /_conform/events on the proxy: they are recorded among the exchanges and never forwarded
        (docs/recordings.md, App events).

        """

    static let replay = """
        OVERVIEW: Replay a recording against an implementation and diff each response against the recorded one.

        USAGE: conform replay RECORDING [--target URL|builtin|exec:CMD] [--noise FILE] [--map OLD=NEW]...

        ARGUMENTS:
          RECORDING               A recording directory, an exchanges.jsonl file, or a HAR file.

        OPTIONS:
          --target TARGET         builtin (default), an http(s) URL, or exec:CMD.
          --noise FILE            Noise rules (YAML) for volatile fields and headers.
          --learn-noise FILE      Replay twice, propose rules for fields that differ between identical runs,
                                  and write them to FILE for review.
          --map OLD=NEW           Replace a value before sending (e.g. a pseudonymised application code by the
                                  target's real one). Repeatable.
          --sequential            Replay in recorded order instead of device flows concurrently.
          --insecure              Accept any TLS certificate (self-signed staging servers).
          --timeout SECONDS       How long one exchange may take (default: 10; at most 24h).
          --max-body SIZE         The largest response body read (default: 64MB); a larger one fails the exchange.
          --connections N         HTTP connections to an http(s) target (default: 8).
          --speed X|max           Keep the recorded pacing scaled by X (2: twice as fast, 0.5: half speed;
                                  0.001 to 10000); max (default) sends as fast as flows allow.
          --rate N/s              Send N exchanges per second (0.001 to 1000000), whatever the recorded pace.
                                  With --speed or --rate the summary gives the rate reached, latency
                                  percentiles (p50, p90, p99) and how far the replay fell behind its schedule.
          --shard K/N             Replay only shard K of N (1 <= K <= N <= 1000): whole groups of device flows
                                  that share a person, with the backend calls about them (docs/sharding.md).
          --quiet                 No progress line (shown only on a terminal).
          --report KIND:FILE      Also write a report: junit:FILE, json:FILE or html:FILE (repeatable); one
                                  test case per exchange, grouped by device flow.
          -h, --help              Show help information.

        Identifiers the target mints (pushRegId, messageId, bulkId) are mapped from recorded to live values and
        substituted into every later request and expectation. Exit 0 when every response matches, 1 otherwise.

        """

    static let diff = """
        OVERVIEW: Run the same exchanges against two implementations and report where they differ, step by step.

        USAGE: conform diff --target A --target B [SUITES_OR_RECORDINGS...] [--noise FILE]

        OPTIONS:
          --target TARGET         Exactly two: builtin, an http(s) URL or exec:CMD.
          --fault-a NAME          A reference fault for the first builtin target (repeatable); --fault-b likewise.
          --noise FILE            Noise rules (YAML) for recordings and responses.
          --var NAME=VALUE        Suite variables (repeatable).
          --map OLD=NEW           Value substitutions for recordings (repeatable).
          --report KIND:FILE      Also write a report: junit:FILE, json:FILE or html:FILE (repeatable); one
                                  test case per step or exchange, B's answer against A's.
          -h, --help              Show help information.

        """

    static let check = """
        OVERVIEW: Check an app's recorded traffic against the flow's rules (client-side conformance).

        USAGE: conform check RECORDING_OR_HAR... [--events FILE] [--restricted APPCODE]... [--jwt APPCODE]...

        OPTIONS:
          --events FILE           App events written by the app's test harness (JSON lines: event, at,
                                  pushRegId, externalUserId), placed among the exchanges by time.
          --restricted APPCODE    An application code that restricts personal-data updates from the app
                                  (default: the reference's).
          --restricted-access APPCODE
                                  An application code that also restricts reading the user (M7) from the app
                                  (default: the reference's).
          --jwt APPCODE           An application code in JWT mode (default: the reference's).
          --disable RULE          Skip a rule by id (repeatable).
          --report KIND:FILE      Also write a report: junit:FILE, json:FILE or html:FILE (repeatable); one
                                  test case per trace and rule, grouped by flow step.
          -h, --help              Show help information.

        Every violation names the exchange (or app event), the flow step it breaks (as the suites name them:
        1-registration … 8-hygiene), and how to fix it. App events recorded by 'record' or 'serve --check', or
        kept in a HAR's log._conformEvents, are used as well; the rules about logout, session expiry, login and
        app update stay silent without events. A note lists what events asked for and the trace did not show
        yet. Exit 0 when there is no violation.

        """

    static let importHAR = """
        OVERVIEW: Import a HAR 1.2 file (browser devtools, Charles, Proxyman, mitmproxy) as a recording.

        USAGE: conform import FILE.har --out recordings/NAME [--no-redact] [--redact FILE]

        """

    static let exportHAR = """
        OVERVIEW: Export a recording as HAR 1.2 (to standard output, or --out FILE.har).

        USAGE: conform export RECORDING [--out FILE.har]

        """

    static let scan = """
        OVERVIEW: Find unredacted secrets (emails, phone numbers, App keys, JWTs, push tokens) in files.

        USAGE: conform scan PATHS...

        Exit 1 when anything is found: use it as a CI gate against leaks in recordings.

        """
}
