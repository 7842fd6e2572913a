import ConformReference
import ConformReport
import ConformRunner

/// The declarations of the commands that play suites: `run`, `merge`, `validate`, `serve`, `mock`.
extension CommandSpec {
    static let suitesArgument = ArgumentSpec(name: "SUITES", help: "Suite files or directories (default: suites).")
    static let suiteExitCodes = """
        0 conforms, 1 at least one must/should mismatch, 2 cannot run (bad suite, I/O, unreachable
        target), 64 usage error.
        """
    static let target = OptionSpec(
        "--target", "TARGET", .text(.words(["builtin", "http://", "https://", "exec:"])), usage: true,
        usageValue: "URL|builtin|exec:CMD",
        help: """
            builtin (default): the embedded reference implementation, in process.
            URL: an HTTP server answering both APIs, e.g. http://127.0.0.1:8080;
            the variables 'mobile' and 'backend' default to it.
            exec:CMD: a program speaking the line-JSON adapter protocol (docs/adapters.md);
            it gets origin-form URLs ('mobile' and 'backend' default to empty).
            """)

    static let allowHost = OptionSpec(
        "--allow-host", "HOST", .text(), repeatable: true,
        help: """
            Let requests go to HOST (or HOST:PORT) too (repeatable). Without it a request
            goes only to the target's base URLs and the values given to 'mobile' and
            'backend'; a suite URL naming another host is refused, never sent.
            """)

    static let run = CommandSpec(
        name: "run", abstract: "Run suites against an implementation (default: the embedded reference).",
        overview: "Run suites against an implementation and report every mismatch.",
        arguments: [suitesArgument],
        options: [
            target,
            .faults(
                """
                With the builtin target: switch on a named bug of the reference
                (repeatable), to see the suites catch it (docs/suites.md lists them).
                """),
            .variants(
                """
                With the builtin target: switch on a behaviour a correct backend may have
                (repeatable; 'all' for every one), to see the suites still pass
                (docs/reference.md lists them).
                """),
            .variables(
                """
                Set a suite variable (repeatable). The environment's CONFORM_VAR_NAME also
                sets it; --var wins over the environment, which wins over suite defaults.
                Give credentials through the environment: ps shows a command line.
                """, usage: true),
            allowHost,
            .report(
                """
                Also write a report: junit:FILE, json:FILE, or html:FILE (a certification
                report page, docs/report.md) (repeatable).
                """),
            OptionSpec(
                "--tag", "TAG", .text(), repeatable: true,
                help: """
                    Run only the suites with this tag (repeatable: any of them). The bundled suites'
                    tags are listed in docs/suites.md.
                    """),
            OptionSpec(
                "--filter", "PATTERN", .text(), repeatable: true,
                help: """
                    Run only what matches (repeatable: any of them): a suite whose id matches, or a
                    step whose SUITE/FLOW/STEP name matches. '*' stands for any characters.
                    """),
            OptionSpec(
                "--step", "PATTERN", .text(), repeatable: true,
                help: """
                    Run only the steps whose name matches (repeatable: any of them); '*' stands for
                    any characters. A selected step brings the steps before it in its flow, and the
                    flows it waits for, up to the step emitting the event (docs/suite-format.md).
                    """),
            OptionSpec("--list", help: "Print the suites and steps that would run, and run nothing."),
            OptionSpec(
                "--fail-fast",
                help: """
                    Start no new step after the first that fails or cannot run; what did not start
                    is reported as skipped (not run).
                    """),
            OptionSpec(
                "--repeat", "N", .integer(1...RunResult.maxRepetitions),
                help: """
                    Run everything N times, 1 to 1000 (default: 1). A step takes its worst verdict;
                    a step whose verdict changed between repetitions is reported as flaky.
                    """),
            .timeout(
                """
                How long one exchange may take (default: 10; at most 24h). Time an exchange
                spends queued for an exec adapter does not count.
                """),
            .maxBody("The largest response body read (default: 64MB); a larger one fails the step."),
            .retry,
            OptionSpec(
                "--jobs", "N", .integer(1...1000),
                help: """
                    How many suites run at once, 1 to 1000 (default: all). The flows of a suite
                    always run together; an exec adapter gets as many exchanges at once as it
                    declares (docs/adapters.md), the rest queue.
                    """),
            OptionSpec(
                "--shard", "K/N", .text(),
                help: """
                    Run only shard K of N (1 <= K <= N <= 1000): the suites whose id hashes to it
                    (FNV-1a, the same on every machine). Write --report json:FILE from each shard
                    and join them with 'conform merge' (docs/sharding.md).
                    """),
            .insecure,
            OptionSpec(
                "--proxy", "URL", .text(),
                help: """
                    Send every request through the HTTP proxy URL (http://HOST:PORT; CONNECT for
                    https:// targets), such as a 'record --forward' proxy. No proxy otherwise.
                    """),
        ] + OptionSpec.clientTLS + OptionSpec.certification + [.verbose, .noColor, .help],
        exitCodes: suiteExitCodes)

    static let merge = CommandSpec(
        name: "merge", abstract: "Merge the JSON reports (or bundles) of a sharded run into those of one run.",
        overview: """
            Merge the JSON reports of the shards of one run ('conform run --shard K/N') into the reports
            of that run: the same verdict, counts, exit code and pages as one unsharded run. With --bundle,
            merge the shards' certification bundles into one bundle instead.
            """,
        arguments: [
            ArgumentSpec(
                name: "REPORT.json|BUNDLE",
                help: "The JSON report (with --bundle: the bundle) of every shard, in any order.")
        ],
        options: [
            .report("Write a report of the whole run: junit:FILE, json:FILE or html:FILE (repeatable)."),
            OptionSpec(
                "--bundle", "OUT", .text(.file),
                help: """
                    Take the shards' bundles ('conform run --shard K/N --bundle DIR') and join them into
                    one bundle in OUT (new or empty): each shard's log and files checked against its
                    manifest and its verdict judged again first; 'conform verify OUT' finds it
                    certifiable when the shards cover the whole bundled plan.
                    """),
            .sign,
            .verbose, .noColor, .help,
        ],
        discussion: """
            Refuses reports that do not make one whole run: a shard missing or given twice, different numbers of
            shards, suites or targets. Durations are the longest shard's; the flaky steps of a repeated run
            ('--repeat N') come back in the order of the whole plan (docs/sharding.md). With --bundle, also
            refuses a shard's bundle that does not verify (a file changed, a report that does not follow from
            its log), naming it, and bundles of other plans, kits, targets, variables or products.
            """,
        exitCodes: """
            0 conforms, 1 at least one must/should mismatch, 2 a shard could not run, a report cannot be read
            or merged, or a shard's bundle does not verify or cannot be joined, 64 usage error.
            """)

    static let validate = CommandSpec(
        name: "validate", abstract: "Check suite files and print every problem.",
        overview: "Check suite files and print every problem with its file, line and column.",
        arguments: [suitesArgument],
        options: [allowHost, OptionSpec("--no-color", help: "Never colour the output."), .help],
        discussion: """
            Prints how many suites and steps are valid and exits 0 when every suite is valid; otherwise prints each
            problem and exits 2.
            A request URL that writes out its own host (instead of {{ mobile }} or {{ backend }}) is a problem
            unless that host is allowed with --allow-host.
            """)

    static let serve = CommandSpec(
        name: "serve", abstract: "Serve the reference implementation over HTTP (with --check: check an app).",
        overview:
            "Serve the embedded reference implementation over HTTP/1.1, or HTTPS with --tls (the mobile and backend APIs).",
        options: [
            OptionSpec(
                "--host", "ADDRESS", .text(), usage: true, help: "The address to listen on (default: 127.0.0.1)."),
            .port,
            OptionSpec(
                "--config", "FILE", .text(.file), usage: true,
                help: """
                    Applications from a YAML or JSON file (docs/reference.md); default: the four
                    built-in applications (all, jwt, restricted, restricted-access).
                    """),
            .faults("Inject a named fault (repeatable), to see how suites catch it.", usage: true),
            .variants(
                """
                Switch on a conforming variant (repeatable; 'all' for every one), e.g. chunked,
                latency or otherAssumedAnswers (docs/reference.md lists them).
                """, usage: true),
            OptionSpec(
                "--threads", "N", .integer(1...64),
                help: """
                    Worker threads, 1 to 64 (default: the server's default; with the latency variant, a
                    thread per connection).
                    """),
            OptionSpec(
                "--max-stored", "SIZE", .size(1024...(1 << 34)),
                help: """
                    The most data the reference keeps, 1KB to 16GB (default: 64MB); a write past it
                    gets 507 STORAGE_LIMIT_REACHED, reads and deletes still go through.
                    """),
            OptionSpec(
                "--check", usage: true,
                help: """
                    Play the server side for an app under test: answer with the reference, record
                    the traffic (redacted) and report flow violations live and at the end.
                    """),
            OptionSpec(
                "--out", "DIRECTORY", .text(.directory), usage: true,
                help: "With --check: where the recording goes (default: recordings/serve-check-TIME)."),
            ClientFaultsOption.spec,
            ClientFaultsOption.seedSpec,
        ] + applicationCodeOptions(usage: false) + [
            .report(
                """
                With --check: also write a report of the check when the server stops:
                junit:FILE, json:FILE or html:FILE (repeatable).
                """),
            publicURL, trustForwarded,
        ] + OptionSpec.listenerTLS + [.maxHead, .help],
        discussion: """
            Runs until interrupted (Ctrl-C or SIGTERM). Point 'conform run --target URL' at the printed address.
            With --check, the app's test harness posts app events (login, logout, sessionExpired, appUpdated,
            personalizeFailed) to POST /_conform/events on the same address; they are recorded among the
            exchanges, never answered by the reference (docs/recordings.md, App events).
            """)

    static let mock = CommandSpec(
        name: "mock", abstract: "Play the server the suites describe, to test a client or an SDK against them.",
        overview: """
            Play the server side of suites: match each request against the next step of a flow, answer
            with a response that satisfies the step's checks, and report what the client did not do.
            """,
        arguments: [
            ArgumentSpec(
                name: "SUITE.yaml",
                help: """
                    One suite: several suites start alike (a registration), so a server cannot
                    tell which one a client plays; mock them one at a time.
                    """, optional: false, repeatable: false)
        ],
        options: [
            .port, .host,
            .variables(
                """
                Fix a suite variable (repeatable). Variables with generated defaults (fresh
                user ids, tokens) are otherwise bound to what the client sends. The
                environment's CONFORM_VAR_NAME also sets it; --var wins.
                """, usage: true),
            OptionSpec(
                "--until-done", usage: true, help: "Stop once every step has been played (otherwise on Ctrl-C)."),
            OptionSpec(
                "--timeout", "SECONDS", .duration(Arguments.timeoutRange), usage: true,
                help: "Stop after this long in any case (for CI: a client that hangs still ends)."),
            .report(
                """
                Also write a report: junit:FILE, json:FILE or html:FILE (repeatable); one
                test case per exchange step, and one per request no step accepted.
                """, usageValue: "KIND:FILE"),
            ClientFaultsOption.spec,
            ClientFaultsOption.seedSpec,
        ] + OptionSpec.listenerTLS + [.maxHead, .help],
        discussion: """
            The client gets origin-form paths (`{{ mobile }}` and `{{ backend }}` are empty): point both base URLs
            at the printed address. Values the suites capture (a pushRegId) are minted here and expected back.
            Exit 0 when every step was played and no request was left unmatched, 1 otherwise. A call
            --client-faults fails never reaches the suite: the step stays to be played until the client
            sends it again.
            """)
}

extension OptionSpec {
    static let faultNames = ReferenceFault.allCases.map(\.rawValue).sorted()
    static let variantNames = ["all"] + ReferenceVariant.allCases.map(\.rawValue).sorted()

    /// `--fault NAME` (`diff`: `--fault-a`, `--fault-b`): a named bug of the builtin reference, repeatable.
    static func faults(_ help: String, option: String = "--fault", usage: Bool = false) -> OptionSpec {
        OptionSpec(option, "NAME", .text(.words(faultNames)), repeatable: true, usage: usage, help: help)
    }

    /// `--variant NAME`: a conforming variant of the builtin reference (`all`: every one), repeatable.
    static func variants(_ help: String, usage: Bool = false) -> OptionSpec {
        OptionSpec("--variant", "NAME", .text(.words(variantNames)), repeatable: true, usage: usage, help: help)
    }
}
