import ConformBundles
import ConformCLI
import ConformCore
import ConformDiagnostics
import ConformFlowCheck
import ConformProxy
import ConformReference
import ConformReport
import ConformRunner
import ConformTesting
import ConformTraffic
import ConformYAML
import Foundation
import Testing

/// The catalog of every diagnostic id, gathered from the modules that declare them (each beside the code that emits
/// them), checked against every declaration in `Sources/` and written to `docs/architecture.md`.
@Suite struct DiagnosticCatalogTests {
    /// Every module's list, in the order of the dependency graph.
    static let catalog: [(module: String, ids: [DiagnosticID])] = [
        ("ConformYAML", DiagnosticID.yamlIDs), ("ConformCore", DiagnosticID.suiteIDs),
        ("ConformReport", DiagnosticID.reportIDs), ("ConformRunner", DiagnosticID.runnerIDs),
        ("ConformReference", DiagnosticID.referenceIDs),
        ("ConformTraffic", DiagnosticID.trafficIDs), ("ConformBundles", DiagnosticID.bundleIDs),
        ("ConformFlowCheck", DiagnosticID.flowCheckIDs), ("ConformProxy", DiagnosticID.proxyIDs),
        ("ConformTesting", DiagnosticID.certificationIDs), ("ConformCLI", DiagnosticID.cliIDs),
    ]

    /// A `public static let name = DiagnosticID("raw")` in a source file, with the module and its `///` line.
    struct Declaration: Hashable {
        var module: String
        var rawValue: String
        var summary: String
    }

    /// Every id declared in `Sources/`, found by reading the files.
    static func declarations() throws -> [Declaration] {
        let sources = SuitesBundle.root.appendingPathComponent("Sources")
        let files = (FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? [])
            .filter { $0.hasSuffix(".swift") }.sorted()
        var found: [Declaration] = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            var doc: [String] = []
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("///") {
                    doc.append(String(trimmed.dropFirst(3)).trimmingCharacters(in: .whitespaces))
                    continue
                }
                defer { doc = [] }
                guard trimmed.contains("static let"), let open = trimmed.range(of: "= DiagnosticID(\"") else {
                    continue
                }
                let rest = trimmed[open.upperBound...]
                guard let close = rest.firstIndex(of: "\"") else { continue }
                found.append(
                    Declaration(
                        module: String(file.prefix { $0 != "/" }), rawValue: String(rest[..<close]),
                        summary: doc.joined(separator: " ")))
            }
        }
        return found
    }

    @Test func idsAreUniqueAndDotted() {
        let names = Self.catalog.flatMap(\.ids).map(\.rawValue)
        #expect(!names.isEmpty)
        #expect(Set(names).count == names.count)
        for name in names {
            #expect(name.split(separator: ".", omittingEmptySubsequences: false).count == 2, "\(name) is not area.kind")
            #expect(
                name.allSatisfy { $0.isLowercase || $0 == "." || $0 == "-" }, "\(name) has more than a-z, '.', '-'")
        }
    }

    /// Every id declared in `Sources/` is in its module's list once, and every listed id is declared there.
    @Test func everyDeclaredIdIsInItsModulesList() throws {
        let declared = try Self.declarations()
        #expect(declared.count == Self.catalog.flatMap(\.ids).count)
        for (module, ids) in Self.catalog {
            let here = declared.filter { $0.module == module }.map(\.rawValue)
            #expect(Set(here) == Set(ids.map(\.rawValue)), "\(module)")
            #expect(here.count == ids.count, "\(module) declares an id twice")
        }
        #expect(declared.allSatisfy { !$0.summary.isEmpty }, "every id says what it means")
    }

    /// The catalog in `docs/architecture.md`, as the declarations say it.
    @Test func theDocumentedCatalogIsTheDeclaredOne() throws {
        var table = "| id | declared in | means |\n|---|---|---|\n"
        for declaration in try Self.declarations().sorted(by: { $0.rawValue < $1.rawValue }) {
            table += "| `\(declaration.rawValue)` | `\(declaration.module)` | \(declaration.summary) |\n"
        }
        try DocsSection(name: "diagnostic-catalog", file: "docs/architecture.md").check(table)
    }
}
