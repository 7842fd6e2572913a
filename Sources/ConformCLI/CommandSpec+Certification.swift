import ConformReport

/// The declarations of certification: `run`'s product and bundle options, and `verify`.
extension OptionSpec {
    /// `run`'s options that name the product under test and write a certification bundle.
    static let certification: [OptionSpec] = [
        OptionSpec(
            "--product", "NAME", .text(),
            help: """
                The name of the implementation under test, shown in every report (with
                --product-version; at most \(ProductIdentity.maxValueLength) characters).
                """),
        OptionSpec("--product-version", "VERSION", .text(), help: "The version of the implementation under test."),
        OptionSpec(
            "--product-file", "FILE", .text(.file),
            help: """
                A product file naming the implementation under test (YAML: name, version,
                vendor, website_url, …; docs/certification.md), instead of --product.
                """),
        OptionSpec(
            "--bundle", "DIR", .text(.file),
            help: """
                Write a certification bundle to DIR (new or empty): the reports, the exchange
                log (redacted), the suites, the product file, the kit's version and a SHA-256
                manifest; 'conform verify DIR' checks it (docs/certification.md).
                """),
        .sign,
    ]
}

extension OptionSpec {
    /// `--sign KEY`: the detached signature of a bundle's manifest (run, merge).
    static let sign = OptionSpec(
        "--sign", "KEY.pem", .text(.file),
        help: """
            Sign the bundle's manifest with this Ed25519 private key (PEM, as 'openssl genpkey
            -algorithm ed25519' writes it), into MANIFEST.sha256.sig; 'conform verify DIR --key
            PUB.pem' checks it and names the key. Needs --bundle.
            """)
}

extension CommandSpec {
    static let verify = CommandSpec(
        name: "verify", abstract: "Check a certification bundle and judge its exchange log again.",
        overview: """
            Check a certification bundle ('conform run --bundle DIR'): every file against its SHA-256
            manifest, then the verdict, judged again from the bundle's exchange log with the bundle's
            suites, without the implementation.
            """,
        arguments: [
            ArgumentSpec(
                name: "DIR", help: "The bundle's directory.", optional: false, repeatable: false, completion: .file)
        ],
        options: [
            .report(
                "Also write a report of the verdict judged again: junit:FILE, json:FILE or html:FILE (repeatable)."),
            OptionSpec(
                "--key", "PUB.pem", .text(.file),
                help: """
                    Require the bundle's signature (MANIFEST.sha256.sig) to verify with this Ed25519
                    public key (PEM, as 'openssl pkey -pubout' writes it); the output names the key by
                    its SHA-256 fingerprint. An unsigned bundle is then not verified (exit 1).
                    """),
            OptionSpec(
                "--allow-partial",
                help: """
                    Accept a bundle whose run is partial (a shard, a selection, suites of one's own, steps
                    skipped) with exit 0 when it conforms; without it such a bundle is no certificate, exit 1.
                    """),
            .verbose, .noColor, .help,
        ],
        discussion: """
            Refuses a bundle with a file missing, a file its manifest does not list, a file changed, a path
            that leaves the bundle or a symbolic link, a file a bundle does not hold, or a product file that is
            not the one the report's provenance names, naming the file. Then plays the bundle's plan with the
            bundle's suites, each request answered by the exchange the log holds for its step, and requires each
            of the bundle's reports (JSON, JUnit, HTML) to say what the run judged again says: every step's
            verdict, the counts and the headline. Says whether the bundle's suites are this kit's bundled suites
            (a suite with the file name or id of a bundled suite but another text is named modified, with a
            diff from the kit's, and makes the run partial) and whether the run is certifiable. A bundle proves
            what was run and its verdict, not who ran it: with --key, its signature names the key that signed it
            (docs/certification.md). A bundle merged from shards ('conform merge --bundle') is judged again
            shard by shard, each from its own log.
            """,
        exitCodes: """
            0 the bundle is intact and its run is certifiable and conforms (or partial and conforms, with
            --allow-partial), 1 intact but no certificate of conformance (it does not conform, its run is
            partial or a suite is modified, or --key was given and the bundle is unsigned), 2 the bundle is
            incomplete, changed, its signature does not verify with --key or its report does not follow from
            its log (or its run could not run), 64 usage error. The last line says which: Verification:
            VERIFIED certifiable, VERIFIED partial, NOT VERIFIED or TAMPERED, then signed by key SHA256:…,
            signed, not checked, or unsigned.
            """)
}
