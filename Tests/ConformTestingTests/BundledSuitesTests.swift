import ConformTesting
import Foundation
import Testing

/// The suites a dependent package gets are the repository's `suites/`, byte for byte.
@Suite struct BundledSuitesTests {
    static let repositorySuites = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("suites")

    @Test func theResourceHoldsExactlyTheFilesOfSuites() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.repositorySuites.path)
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
        #expect(files.count > 10)
        // SwiftPM copies resources but never deletes them: a suite removed from suites/ stays in the build
        // directory until 'swift package clean'.
        #expect(
            CertificationSuites.bundledNames == files,
            "Bundle.module differs from suites/; after removing a suite, run 'swift package clean'")
        for file in files {
            let bundled = FileManager.default.contents(
                atPath: CertificationSuites.bundledDirectory.appendingPathComponent(file).path)
            let original = FileManager.default.contents(atPath: Self.repositorySuites.appendingPathComponent(file).path)
            #expect(bundled != nil && bundled == original, "\(file) in Bundle.module differs from suites/\(file)")
        }
    }

    @Test func theResourceIsACopyNotALink() throws {
        // A symlink in the bundle would dangle once the package is built elsewhere or the sources move.
        let first = try #require(CertificationSuites.bundledNames.first)
        let path = CertificationSuites.bundledDirectory.appendingPathComponent(first).path
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect(!path.hasPrefix(Self.repositorySuites.path))
    }
}
