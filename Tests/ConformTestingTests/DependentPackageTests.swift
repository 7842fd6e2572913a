import ConformTestSupport
import Foundation
import Testing

/// A package outside the repository, as a vendor writes it: a `path:` dependency on Conform, its own transport, and
/// a Swift Testing and an XCTest test that certify the embedded reference through it.
///
/// It builds the dependency graph a second time (only what `ConformTesting` needs: no curl, no server), in its own
/// scratch directory, removed afterwards.
@Suite struct DependentPackageTests {
    @Test func aDependentPackageBuildsAndCertifiesTheReferenceThroughItsOwnTransport() async throws {
        let scratch = try Scratch()
        let package = scratch.url.appendingPathComponent("VendorSDK")
        try DependentPackage.write(to: package, dependingOn: TestPaths.root)
        let log = scratch.url.appendingPathComponent("swift-test.log")
        let code = try await DependentPackage.swiftTest(
            in: package, scratchPath: scratch.url.appendingPathComponent("build"),
            temporaryDirectory: scratch.url.appendingPathComponent("tmp"), log: log)
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let tail = output.split(separator: "\n", omittingEmptySubsequences: false).suffix(60).joined(separator: "\n")
        #expect(code == 0, "swift test in the dependent package exited \(code):\n\(tail)")
        #expect(output.contains("Test certifiesTheReferenceThroughTheVendorTransport() passed"), "\(tail)")
        #expect(output.contains("Test aFaultIsCaughtThroughTheVendorTransport() passed"), "\(tail)")
        #expect(output.contains("Executed 1 test, with 0 failures"), "the XCTest case did not run:\n\(tail)")
    }
}

/// Writes and tests the dependent package.
enum DependentPackage {
    /// Writes the manifest and the test target; the product is named by the dependency's identity, its directory name.
    static func write(to package: URL, dependingOn root: URL) throws {
        let tests = package.appendingPathComponent("Tests/VendorSDKTests")
        try FileManager.default.createDirectory(at: tests, withIntermediateDirectories: true)
        let identity = root.lastPathComponent.lowercased()
        let manifest = """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "VendorSDK",
                platforms: [.macOS(.v14)],
                dependencies: [.package(path: \(literal(root.path)))],
                targets: [
                    .testTarget(
                        name: "VendorSDKTests",
                        dependencies: [.product(name: "ConformTesting", package: \(literal(identity)))])
                ]
            )

            """
        try Data(manifest.utf8).write(to: package.appendingPathComponent("Package.swift"))
        try Data(testSource.utf8).write(to: tests.appendingPathComponent("CertificationTests.swift"))
    }

    /// The vendor's tests: a transport of their own around the in-process reference, certified twice.
    static let testSource = """
        import ConformCore
        import ConformReference
        import ConformTesting
        import Synchronization
        import Testing
        import XCTest

        /// The vendor's networking layer: it counts what it sends and passes everything through untouched.
        final class CountingTransport: Transport {
            let inner: any Transport
            let sent = Mutex(0)
            init(_ inner: any Transport) { self.inner = inner }
            func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                sent.withLock { $0 += 1 }
                return try await inner.send(request)
            }
        }

        func target(faults: Set<ReferenceFault> = []) -> (CertificationTarget, CountingTransport) {
            let transport = CountingTransport(ReferenceImplementation(faults: faults))
            return (.transport(transport, baseURL: CertificationTarget.referenceMobileURL), transport)
        }

        @Test func certifiesTheReferenceThroughTheVendorTransport() async {
            let (target, transport) = target()
            let result = await Certification.run(target)
            #expect(result.conforms, "\\(result.summary)")
            #expect(result.run?.suites.count == CertificationSuites.bundledNames.count)
            #expect(transport.sent.withLock { $0 } > 100)
        }

        @Test func aFaultIsCaughtThroughTheVendorTransport() async {
            let (target, _) = target(faults: [.ignoreForceDepersonalize])
            let result = await Certification.run(target, suites: .bundled(["02-login"]))
            #expect(result.outcome == .doesNotConform)
            #expect(result.summary.contains("the other user logs in with forceDepersonalize=true"))
        }

        final class XCTestCertification: XCTestCase {
            func testTheReferenceConformsThroughTheVendorTransport() async {
                let (target, _) = target()
                let result = await Certification.run(target, suites: .bundled(["01-registration", "02-login"]))
                XCTAssertTrue(result.conforms, result.summary)
            }
        }

        """

    /// Runs `swift test` in `package` with its own scratch path and temporary directory (SwiftPM keeps lock files
    /// there); returns the exit code, with the output in `log`.
    static func swiftTest(in package: URL, scratchPath: URL, temporaryDirectory: URL, log: URL) async throws -> Int32 {
        try FileManager.default.createDirectory(at: temporaryDirectory, withIntermediateDirectories: true)
        // Only what a shell in a fresh terminal has: the outer test run's own variables must not leak in.
        let inherited = ProcessInfo.processInfo.environment
        var environment = inherited.filter { ["PATH", "HOME", "LANG", "USER"].contains($0.key) }
        environment["TMPDIR"] = temporaryDirectory.path
        return try await ChildProcess.run(
            "/usr/bin/env", ["swift", "test", "--package-path", package.path, "--scratch-path", scratchPath.path],
            environment: environment, directory: package, log: log)
    }

    /// `text` as a Swift string literal.
    static func literal(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
