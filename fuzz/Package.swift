// swift-tools-version:6.0
import PackageDescription

// libFuzzer drivers for Conform's parsers (see ../scripts/fuzz and ../docs/hostile-input.md). Built apart from the
// main package because the driver has no `main`: libFuzzer provides it.
let package = Package(
    name: "ConformFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Conform", path: "..")],
    targets: [
        .executableTarget(
            name: "conform-fuzz",
            dependencies: [.product(name: "ConformFuzzTargets", package: "Conform")],
            path: "Driver",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    ]
)
