/// Help texts in the OVERVIEW / USAGE / ARGUMENTS / OPTIONS / SUBCOMMANDS layout.
enum Help {
    static let root = """
        OVERVIEW: Certify implementations of the mobile personalization-with-authorization flow.

        Conform plays YAML suites of expected HTTP exchanges against an implementation (the embedded
        reference by default, a live backend, a broker, a mock, or an SDK adapter), diffs what comes back,
        and reports like a certification tool.

        USAGE: conform <subcommand> [options]

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          run                     Run suites against an implementation (default: the embedded reference).
          merge                   Merge the JSON reports of a sharded run into the reports of one run.
          validate                Check suite files and print every problem.
          serve                   Serve the reference implementation over HTTP (with --check: check an app).
          mock                    Play the server the suites describe, to test a client or an SDK against them.
          record                  Record real traffic through a reverse proxy (redacted by default).
          replay                  Replay a recording against an implementation and diff the responses.
          diff                    Run the same exchanges against two implementations and compare.
          check                   Check an app's recorded traffic against the flow's rules.
          import                  Import a HAR file as a recording.
          export                  Export a recording as HAR.
          scan                    Find unredacted secrets in files.

          See 'conform <subcommand> --help' for detailed help.

        """

    static func usage(_ subcommand: String) -> String {
        switch subcommand {
        case "run":
            "conform run [SUITES...] [--target URL|builtin|exec:CMD] [--var NAME=VALUE]... [--report junit:FILE|json:FILE|html:FILE]..."
        case "validate": "conform validate SUITES..."
        case "merge": "conform merge REPORT.json... [--report junit:FILE|json:FILE|html:FILE]..."
        case "mock":
            "conform mock SUITE.yaml [--port N] [--var NAME=VALUE]... [--until-done] [--timeout SECONDS] [--report KIND:FILE]..."
        case "serve":
            "conform serve [--host ADDRESS] [--port N] [--config FILE] [--fault NAME]... [--variant NAME]... [--check [--out DIR]]"
        default: "conform \(subcommand) [options]"
        }
    }

    static let run = """
        OVERVIEW: Run suites against an implementation and report every mismatch.

        USAGE: \(usage("run"))

        ARGUMENTS:
          SUITES                  Suite files or directories (default: suites).

        OPTIONS:
          --target TARGET         builtin (default): the embedded reference implementation, in process.
                                  URL: an HTTP server answering both APIs, e.g. http://127.0.0.1:8080;
                                  the variables 'mobile' and 'backend' default to it.
                                  exec:CMD: a program speaking the line-JSON adapter protocol (docs/adapters.md);
                                  it gets origin-form URLs ('mobile' and 'backend' default to empty).
          --fault NAME            With the builtin target: switch on a named bug of the reference
                                  (repeatable), to see the suites catch it (docs/suites.md lists them).
          --variant NAME          With the builtin target: switch on a behaviour a correct backend may have
                                  (repeatable; 'all' for every one), to see the suites still pass
                                  (docs/reference.md lists them).
          --var NAME=VALUE        Set a suite variable (repeatable). The environment's CONFORM_VAR_NAME also
                                  sets it; --var wins over the environment, which wins over suite defaults.
          --report KIND:FILE      Also write a report: junit:FILE, json:FILE, or html:FILE (a certification
                                  report page, docs/report.md) (repeatable).
          --timeout SECONDS       How long one exchange may take (default: 10; at most 24h). Time an exchange
                                  spends queued for an exec adapter does not count.
          --max-body SIZE         The largest response body read (default: 64MB); a larger one fails the step.
          --jobs N                How many suites run at once, 1 to 1000 (default: all). The flows of a suite
                                  always run together; an exec adapter gets as many exchanges at once as it
                                  declares (docs/adapters.md), the rest queue.
          --shard K/N             Run only shard K of N (1 <= K <= N <= 1000): the suites whose id hashes to it
                                  (FNV-1a, the same on every machine). Write --report json:FILE from each shard
                                  and join them with 'conform merge' (docs/sharding.md).
          --insecure              Accept any TLS certificate (self-signed staging servers).
          --verbose               List every step, not only those that did not pass.
          --no-color              Never colour the output (NO_COLOR is honoured too).
          -h, --help              Show help information.

        EXIT CODES:
          0 conforms, 1 at least one must/should mismatch, 2 cannot run (bad suite, I/O, unreachable
          target), 64 usage error.

        """

    static let serve = """
        OVERVIEW: Serve the embedded reference implementation over HTTP/1.1 (both the mobile and the backend API).

        USAGE: \(usage("serve"))

        OPTIONS:
          --host ADDRESS          The address to listen on (default: 127.0.0.1).
          --port N                The port (default: 0, any free port; the bound address is printed).
          --config FILE           Applications from a YAML or JSON file (docs/reference.md); default: the four
                                  built-in applications (all, jwt, restricted, restricted-access).
          --fault NAME            Inject a named fault (repeatable), to see how suites catch it.
          --variant NAME          Switch on a conforming variant (repeatable; 'all' for every one), e.g. chunked,
                                  latency or otherAssumedAnswers (docs/reference.md lists them).
          --threads N             Worker threads (default: the server's default; with the latency variant, a
                                  thread per connection).
          --check                 Play the server side for an app under test: answer with the reference, record
                                  the traffic (redacted) and report flow violations live and at the end.
          --out DIRECTORY         With --check: where the recording goes (default: recordings/serve-check-TIME).
          -h, --help              Show help information.

        Runs until interrupted (Ctrl-C or SIGTERM). Point 'conform run --target URL' at the printed address.
        With --check, the app's test harness posts app events (login, logout, sessionExpired, appUpdated) to
        POST /_conform/events on the same address; they are recorded among the exchanges, never answered by
        the reference (docs/recordings.md, App events).

        """

    static let merge = """
        OVERVIEW: Merge the JSON reports of the shards of one run ('conform run --shard K/N') into the reports
        of that run: the same verdict, counts, exit code and pages as one unsharded run.

        USAGE: \(usage("merge"))

        ARGUMENTS:
          REPORT.json             The JSON report of every shard, in any order.

        OPTIONS:
          --report KIND:FILE      Write a report of the whole run: junit:FILE, json:FILE or html:FILE (repeatable).
          --verbose               List every step, not only those that did not pass.
          --no-color              Never colour the output (NO_COLOR is honoured too).
          -h, --help              Show help information.

        Refuses reports that do not make one whole run: a shard missing or given twice, different numbers of
        shards, suites or targets. Durations are the longest shard's (docs/sharding.md).

        EXIT CODES:
          0 conforms, 1 at least one must/should mismatch, 2 a shard could not run or a report cannot be read
          or merged, 64 usage error.

        """

    static let validate = """
        OVERVIEW: Check suite files and print every problem with its file, line and column.

        USAGE: \(usage("validate"))

        ARGUMENTS:
          SUITES                  Suite files or directories (default: suites).

        OPTIONS:
          --no-color              Never colour the output.
          -h, --help              Show help information.

        Prints nothing and exits 0 when every suite is valid; otherwise prints each problem and exits 2.

        """
}
