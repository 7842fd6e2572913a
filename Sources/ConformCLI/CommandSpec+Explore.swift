import ConformCore
import ConformMobileMessaging

/// `conform explore`'s declaration.
extension CommandSpec {
    static let explore = CommandSpec(
        name: "explore",
        abstract: "Explore sequences of protocol operations against an implementation and the reference.",
        overview: """
            Generate sequences of mobile and backend calls over several installations and persons,
            play each on the target and on a fresh embedded reference, and compare every answer
            under the suites' must/assumed rules. A divergence is shrunk and written as a suite
            that 'conform run' replays (docs/explore.md).
            """,
        options: [
            target,
            .faults("With the builtin target: switch on a named bug of the reference (repeatable)."),
            .variants("With the builtin target: switch on a conforming variant (repeatable; 'all')."),
            .variables("Set a variable of the generated suites (repeatable), e.g. appCode or apiKey."),
            OptionSpec(
                "--seed", "N", .integer(0...4_294_967_295), usage: true,
                help: "Draw the sequences from this seed, 0 to 4294967295 (default: a random one, printed)."),
            OptionSpec(
                "--budget", "N|DURATION", .text(), usage: true,
                help: "How much to explore: a number of sequences, or a time such as 30s (default: 100)."),
            OptionSpec(
                "--max-length", "N", .integer(1...200),
                help: "The longest sequence, in operations (default: 12)."),
            OptionSpec("--devices", "K", .integer(1...8), help: "Installations a sequence may register (default: 3)."),
            OptionSpec("--persons", "P", .integer(1...8), help: "Persons a sequence may use (default: 2)."),
            OptionSpec(
                "--application", "MODE", .text(.words(MobileMessaging.applicationModes)),
                help: "The application mode: all (default), restricted, restricted-access or jwt."),
            OptionSpec(
                "--window", "DURATION", .duration(.milliseconds(10)...Duration.seconds(600)),
                help: """
                    How long an asynchronous effect (a push reaching message sync, a People read)
                    may take to show (default: 5s); only reads that differ wait for it.
                    """),
            OptionSpec(
                "--exhaustive", help: "Every sequence up to --depth instead of random ones (symmetry-reduced)."),
            OptionSpec("--depth", "N", .integer(1...6), help: "The depth of --exhaustive (default: 2)."),
            OptionSpec(
                "--out", "DIR", .text(.directory), usage: true,
                help: """
                    Write a shrunk divergence here as a suite, and replay the suites kept here
                    first (default: a directory under the system's temporary directory).
                    """),
            .report("Also write a report: junit:FILE, json:FILE or html:FILE (repeatable).", usage: true),
            .timeout("How long one exchange may take (default: 10s)."),
            .retry, .noColor, .verbose, .help,
        ],
        discussion: """
            Nothing diverging within the budget is no proof of conformance: the report says the
            seed, the budget and the coverage of the model (operations in each state reached).
            The same seed draws the same sequences; persons, tags and texts are fresh on every
            run, so a live target needs no reset.
            """,
        exitCodes: """
            0 nothing diverged within the budget; 1 a sequence diverged (the shrunk suite's path is
            printed); 2 could not run (the target answered 5xx or nothing, or nothing was
            explored); 64 usage error.
            """)
}
