import ConformTestSupport
import Foundation
import Testing

/// `docs/architecture.md`'s module table and the imports of every library agree with `Package.swift`: each row's
/// "depends on" is the target's declared dependencies, and no source file imports a module of the project its
/// target does not declare.
@Suite struct ArchitectureTableTests {
    static let root = TestPaths.root.path

    /// The targets of `Package.swift` (not test targets) and their declared dependencies, read from its text: each
    /// `.target(`, `.executableTarget(` or `.systemLibrary(` with its `name:` and its `dependencies: [...]`.
    static func declared() throws -> [String: Set<String>] {
        let text = try String(contentsOfFile: root + "/Package.swift", encoding: .utf8)
        var targets: [String: Set<String>] = [:]
        let kinds = [".target(", ".executableTarget(", ".systemLibrary("]
        var rest = Substring(text)
        while let start = kinds.compactMap({ rest.range(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound }) {
            rest = rest[start.upperBound...]
            // The declaration ends where the next one starts.
            let next = kinds.compactMap { rest.range(of: $0)?.lowerBound }.min() ?? rest.endIndex
            let tests = rest.range(of: ".testTarget(")?.lowerBound ?? rest.endIndex
            let body = rest[..<min(next, tests)]
            guard let name = Self.quoted(after: "name: ", in: body) else { continue }
            var dependencies: Set<String> = []
            if let list = body.range(of: "dependencies: [") {
                let end = body[list.upperBound...].firstIndex(of: "]") ?? body.endIndex
                dependencies = Set(Self.quotedStrings(body[list.upperBound..<end]))
            }
            targets[name] = dependencies
        }
        return targets
    }

    static func quoted(after marker: String, in text: Substring) -> String? {
        guard let at = text.range(of: marker + "\"") else { return nil }
        return text[at.upperBound...].split(separator: "\"", maxSplits: 1).first.map(String.init)
    }

    static func quotedStrings(_ text: Substring) -> [String] {
        text.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
            .map { String($0.element) }
    }

    /// Backquoted names in a table cell.
    static func names(_ cell: Substring) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
            .map { String($0.element) }
    }

    @Test func theModuleTableNamesEachTargetsDeclaredDependencies() throws {
        let targets = try Self.declared()
        #expect(targets.count > 20, "Package.swift read as \(targets)")
        let doc = try String(contentsOfFile: Self.root + "/docs/architecture.md", encoding: .utf8)
        let rows = doc.split(separator: "\n").drop { !$0.hasPrefix("| target | holds | depends on |") }.dropFirst(2)
            .prefix { $0.hasPrefix("|") }
        var described: Set<String> = []
        for row in rows {
            let cells = row.split(separator: "|", omittingEmptySubsequences: false)
            guard cells.count >= 4 else {
                Issue.record("docs/architecture.md: a row of the module table has no three cells: \(row)")
                continue
            }
            let modules = Self.names(cells[1]).filter { !$0.contains("*") && !$0.contains("/") }
            let dependsOn = cells[cells.count - 2].trimmingCharacters(in: .whitespaces)
            for module in modules {
                described.insert(module)
                guard let declared = targets[module] else {
                    Issue.record("docs/architecture.md: `\(module)` is not a target of Package.swift")
                    continue
                }
                // `all` (the CLI) and the benches' prose are not lists.
                if dependsOn == "all" || !dependsOn.hasPrefix("`") && dependsOn != "—" { continue }
                let documented = dependsOn == "—" ? [] : Set(Self.names(Substring(dependsOn)))
                #expect(
                    documented == declared,
                    """
                    docs/architecture.md: `\(module)` depends on \(declared.sorted()) in Package.swift, the table \
                    says \(documented.sorted())
                    """)
            }
        }
        let bench = Set(targets.keys.filter { $0.hasPrefix("conform-bench-") || $0 == "ConformBenchSupport" })
        #expect(
            Set(targets.keys).subtracting(described).subtracting(bench).isEmpty,
            "targets the table leaves out: \(Set(targets.keys).subtracting(described).subtracting(bench).sorted())")
    }

    @Test func everyImportOfAModuleOfTheProjectIsDeclared() throws {
        let targets = try Self.declared()
        let files = FileManager.default
        var checked = 0
        for (target, dependencies) in targets {
            let directory = Self.root + "/Sources/" + target
            guard let paths = files.enumerator(atPath: directory) else { continue }
            for case let path as String in paths where path.hasSuffix(".swift") {
                let text = try String(contentsOfFile: directory + "/" + path, encoding: .utf8)
                checked += 1
                for line in text.split(separator: "\n") where line.contains("import ") {
                    let words = line.split(separator: " ")
                    guard let at = words.firstIndex(of: "import"), at + 1 < words.count,
                        words[..<at].allSatisfy({ $0.hasPrefix("@") || ["internal", "public", "package"].contains($0) })
                    else { continue }
                    let module = String(words[at + 1])
                    guard targets[module] != nil, module != target else { continue }
                    #expect(
                        dependencies.contains(module),
                        "Sources/\(target)/\(path) imports \(module), which Package.swift does not declare for \(target)"
                    )
                }
            }
        }
        #expect(checked > 200, "only \(checked) source files were read")
    }
}
