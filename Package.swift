// swift-tools-version:6.0
import PackageDescription

// The commit the kit is built from, embedded in the binary (reports name it; nothing runs git at run time).
let buildCommit =
    Context.gitInformation.map { $0.currentCommit + ($0.hasUncommittedChanges ? "-dirty" : "") } ?? "unknown"

let package = Package(
    name: "Conform",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "conform", targets: ["conform"]),
        .library(name: "ConformCore", targets: ["ConformCore"]),
        .library(name: "ConformReport", targets: ["ConformReport"]),
        .library(name: "ConformRunner", targets: ["ConformRunner"]),
        .library(name: "ConformTransports", targets: ["ConformTransports"]),
        .library(name: "ConformReference", targets: ["ConformReference"]),
        .library(name: "ConformMobileMessaging", targets: ["ConformMobileMessaging"]),
        // Certification from an SDK's own tests; it brings the modules its API names (Transport, results, faults).
        .library(
            name: "ConformTesting",
            targets: [
                "ConformTesting", "ConformCore", "ConformReport", "ConformRunner", "ConformReference",
                "ConformMobileMessaging",
            ]),
        .library(name: "ConformFuzzTargets", targets: ["ConformFuzzTargets"]),
    ],
    targets: [
        // C libraries from Debian, each behind one door.
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CGnuTLS", pkgConfig: "gnutls", providers: [.apt(["libgnutls28-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlidec", providers: [.apt(["libbrotli-dev"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CPcap", pkgConfig: "libpcap", providers: [.apt(["libpcap-dev"])]),
        // glibc's malloc.h (libc itself): the arena setting the executable applies.
        .systemLibrary(name: "CMalloc"),
        // glibc's posix_spawn action that closes inherited descriptors, declared only for _GNU_SOURCE in spawn.h.
        .systemLibrary(name: "CSpawn"),
        // Linux's epoll (libc itself), through wrappers: its event struct is packed and holds a union.
        .systemLibrary(name: "CEpoll"),

        // suite (YAML) -> model -> runner -> transport -> implementation -> diff -> report
        // One diagnostic type (file:line:col, severity, message, help, an id from a catalog) and its renderer.
        .target(name: "ConformDiagnostics"),
        .target(name: "ConformYAML", dependencies: ["ConformDiagnostics", "CYAML"]),
        .target(name: "ConformCore", dependencies: ["ConformDiagnostics", "ConformYAML"]),
        // The one Swift door to libcrypto: digests, Ed25519, JWT (headers written with the core's JSON writer), and the
        // local certificate authority in `TLS/` (keys and X.509): leaves for HTTPS listeners, device exports.
        .target(name: "ConformCrypto", dependencies: ["ConformCore", "CCrypto"]),
        // Build facts compiled in: the commit (`conform --version`, every report's provenance).
        .target(name: "CBuildInfo", cSettings: [.define("CONFORM_COMMIT", to: "\"\(buildCommit)\"")]),
        // Results of every command (runs, replays, checks, diffs, mock sessions) and the reporters that render them.
        .target(
            name: "ConformReport", dependencies: ["ConformCore", "ConformDiagnostics", "ConformYAML", "CBuildInfo"],
            resources: [.embedInCode("Resources/report.css")]),
        .target(
            name: "ConformRunner",
            dependencies: ["ConformCore", "ConformCrypto", "ConformDiagnostics", "ConformReport"]),
        // The protocol profile the engine is handed: Mobile Messaging's bases and its `jwt` template function.
        .target(name: "ConformMobileMessaging", dependencies: ["ConformCore", "ConformCrypto"]),
        // Transports and transport decorators that need no C library; curl's lives in ConformCurl.
        .target(name: "ConformTransports", dependencies: ["ConformCore", "CSpawn"]),
        .target(name: "ConformCurl", dependencies: ["ConformCore", "CCurl", "CEpoll"]),
        // The reference is Mobile Messaging's: it refuses in the profile's envelope.
        .target(
            name: "ConformReference",
            dependencies: ["ConformCore", "ConformCrypto", "ConformDiagnostics", "ConformMobileMessaging", "ConformYAML"]),
        .target(name: "ConformServer", dependencies: ["ConformCore", "CMicroHTTPD", "CGnuTLS"]),
        // `conform explore`: sequences drawn from the profile's operations, played on the target and on a fresh
        // reference, judged as generated suites by the runner, shrunk and written as a suite.
        .target(
            name: "ConformExplore",
            dependencies: ["ConformCore", "ConformReport", "ConformRunner", "ConformReference", "ConformDiagnostics"]),
        // The traffic base: traces (every format read by content), recordings, redaction, HAR; no server, no replay.
        .target(
            name: "ConformTraffic",
            dependencies: [
                "ConformCore", "ConformDiagnostics", "ConformReport", "ConformCrypto", "ConformTransports",
                "ConformYAML",
                "CZlib", "CBrotli", "CZstd",
            ]),
        // A trace sent again to a target (`replay`) or to two (`diff`): id remapping, noise, pace, fresh identities.
        .target(
            name: "ConformReplay",
            dependencies: [
                "ConformCore", "ConformCrypto", "ConformDiagnostics", "ConformReport", "ConformTraffic", "ConformYAML",
            ]),
        // The client-side flow rules judged on a trace's exchanges and app events (`check`, and live checks).
        .target(
            name: "ConformFlowCheck",
            dependencies: ["ConformCore", "ConformCrypto", "ConformDiagnostics", "ConformReport", "ConformTraffic"]),
        // The recording proxy and its session (`record`, `serve --check`), and the listeners of every serving command
        // (plain HTTP, HTTPS from the local CA or the user's own certificate): the one traffic module on ConformServer.
        .target(
            name: "ConformProxy",
            dependencies: [
                "ConformCore", "ConformCrypto", "ConformDiagnostics", "ConformFlowCheck", "ConformReport",
                "ConformServer", "ConformTraffic", "ConformTransports",
            ]),
        // Certification bundles (docs/certification.md): written beside a run, merged from shards, verified by playing
        // their plan against their log; the suite run session of the runner, signatures by ConformCrypto.
        .target(
            name: "ConformBundles",
            dependencies: [
                "ConformCore", "ConformCrypto", "ConformDiagnostics", "ConformReport", "ConformRunner",
                "ConformTraffic", "ConformTransports", "ConformYAML",
            ]),
        // Packet captures (pcap, pcapng, live) read into recordings: TCP reassembly and HTTP/1.1 from both directions.
        .target(
            name: "ConformCapture", dependencies: ["ConformCore", "ConformTraffic", "ConformDiagnostics", "CPcap"]),
        .target(
            name: "ConformCLI",
            dependencies: [
                "ConformCore", "ConformReport", "ConformRunner", "ConformCurl", "ConformReference", "ConformServer",
                "ConformTraffic", "ConformReplay", "ConformFlowCheck", "ConformProxy", "ConformTransports", "ConformYAML",
                "ConformDiagnostics", "ConformMobileMessaging", "ConformCapture", "ConformCrypto", "CMalloc",
                "ConformExplore", "ConformBundles",
            ]
        ),
        // The bundled suites are a resource through a symlink (Suites -> ../../suites): one copy, in suites/.
        .target(
            name: "ConformTesting",
            dependencies: [
                "ConformCore", "ConformDiagnostics", "ConformReport", "ConformRunner", "ConformReference",
                "ConformMobileMessaging",
            ],
            exclude: ["Suites/README.md"], resources: [.process("Suites")]),
        .executableTarget(name: "conform", dependencies: ["ConformCLI"]),
        .executableTarget(
            name: "conform-bench-http", dependencies: ["ConformServer", "ConformCurl", "ConformCore"],
            path: "bench/http/Sources"),
        .executableTarget(name: "conform-bench-yaml", dependencies: ["ConformYAML"], path: "bench/yaml/Sources"),

        .target(
            name: "ConformBenchSupport",
            dependencies: [
                "ConformCore", "ConformReport", "ConformRunner", "ConformCurl", "ConformServer", "ConformMobileMessaging",
            ],
            path: "bench/runner/Support"
        ),
        .executableTarget(
            name: "conform-bench-runner", dependencies: ["ConformBenchSupport"], path: "bench/runner/Sources"),
        .executableTarget(
            name: "conform-bench-replay",
            dependencies: [
                "ConformCore", "ConformCurl", "ConformMobileMessaging", "ConformReference", "ConformTraffic",
            ],
            path: "bench/replay/Sources"
        ),
        .target(
            name: "ConformFuzzTargets",
            dependencies: [
                "ConformCapture", "ConformCore", "ConformReference", "ConformServer", "ConformTraffic", "ConformYAML",
            ],
            path: "fuzz/Targets"),
        // What test targets share (scratch directories, fixture paths, child processes, tool traits); tests only.
        .target(name: "ConformTestSupport", dependencies: ["CSpawn"], path: "Tests/ConformTestSupport"),
        .testTarget(name: "ConformDiagnosticsTests", dependencies: ["ConformDiagnostics"]),
        .testTarget(
            name: "ConformYAMLTests", dependencies: ["ConformYAML", "ConformDiagnostics", "ConformCore"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "ConformCoreTests", dependencies: ["ConformCore", "ConformDiagnostics", "ConformMobileMessaging"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "ConformReportTests",
            dependencies: ["ConformReport", "ConformCore", "ConformDiagnostics", "ConformTestSupport"]),
        .testTarget(
            name: "ConformRunnerTests",
            dependencies: [
                "ConformRunner", "ConformReport", "ConformReference", "ConformMobileMessaging", "ConformTestSupport",
                "ConformDiagnostics",
            ],
            exclude: ["Goldens"]),
        .testTarget(
            name: "ConformCurlTests",
            dependencies: [
                "ConformCurl", "ConformServer", "ConformReport", "ConformRunner", "ConformTransports", "ConformCrypto",
                "ConformTestSupport",
            ],
            exclude: ["Adapters"]),
        .testTarget(name: "ConformTLSTests", dependencies: ["ConformCrypto", "ConformTestSupport"]),
        .testTarget(
            name: "ConformExploreTests", dependencies: ["ConformExplore", "ConformCore", "ConformMobileMessaging"]),
        .testTarget(
            name: "ConformTransportsTests", dependencies: ["ConformTransports", "ConformTestSupport"],
            exclude: ["Adapters"]),
        .testTarget(name: "ConformReferenceTests", dependencies: ["ConformReference", "ConformCrypto"]),
        .testTarget(
            name: "ConformServerTests",
            dependencies: [
                "ConformServer", "ConformReference", "ConformCurl", "ConformTestSupport", "ConformCrypto",
                "ConformMobileMessaging",
            ]),
        .testTarget(
            name: "ConformTrafficTests",
            dependencies: [
                "ConformTraffic", "ConformReplay", "ConformFlowCheck", "ConformProxy", "ConformReport",
                "ConformReference", "ConformServer", "ConformCurl", "ConformCrypto", "ConformFuzzTargets",
                "ConformTestSupport", "ConformDiagnostics", "ConformMobileMessaging",
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "ConformBundlesTests",
            dependencies: [
                "ConformBundles", "ConformCore", "ConformCrypto", "ConformDiagnostics", "ConformMobileMessaging",
                "ConformReference", "ConformReport", "ConformRunner", "ConformTestSupport", "ConformTraffic",
            ]),
        .testTarget(
            name: "ConformCaptureTests",
            dependencies: [
                "ConformCapture", "ConformCore", "ConformTraffic", "ConformProxy", "ConformServer", "ConformReference",
                "ConformCurl", "ConformTestSupport", "ConformFuzzTargets", "ConformMobileMessaging",
            ],
            exclude: ["Scripts"]),
        .testTarget(
            name: "ConformCLITests",
            dependencies: [
                "ConformCLI", "ConformCore", "ConformReport", "ConformRunner", "ConformReference", "ConformServer",
                "ConformCurl", "ConformTransports", "ConformMobileMessaging", "ConformTraffic", "ConformFlowCheck",
                "ConformProxy", "ConformTestSupport",
                "ConformCrypto", "ConformTesting", "ConformYAML", "ConformDiagnostics", "ConformExplore",
                "ConformBundles",
            ],
            exclude: ["Cases", "Adapters", "HARConsumers"]
        ),
        .testTarget(
            name: "ConformTestingTests",
            dependencies: ["ConformTesting", "ConformReport", "ConformCLI", "ConformTestSupport"]),
        // Plays an SDK: its own URLSession transport, certified against `conform serve` (the built binary); the
        // server library only checks what the transport does on the wire.
        .testTarget(
            name: "ConformTestingExamples", dependencies: ["ConformTesting", "ConformServer", "ConformTestSupport"]),
    ]
)
