import ConformTestSupport
import ConformYAML
import Foundation
import Testing

/// `examples/github-actions/conform-sharded.yml` is a YAML document whose `conform` commands exist: every
/// subcommand and option it passes is one `conform SUBCOMMAND --help` lists; every shard uploads its reports and
/// bundle whatever its exit; the last job merges the bundles and verifies the result.
@Suite struct GitHubActionsExampleTests {
    static let file = TestPaths.root.appendingPathComponent("examples/github-actions/conform-sharded.yml")

    /// Every mapping of the document, depth first.
    func mappings(_ node: YAMLNode) -> [[(key: String, value: YAMLNode)]] {
        switch node.kind {
        case .mapping(let pairs):
            let here = pairs.compactMap { pair -> (key: String, value: YAMLNode)? in
                guard case .scalar(let key, _) = pair.key.kind else { return nil }
                return (key, pair.value)
            }
            return [here] + pairs.flatMap { mappings($0.value) }
        case .sequence(let items): return items.flatMap { mappings($0) }
        default: return []
        }
    }

    func scalar(_ node: YAMLNode?) -> String? {
        guard let node, case .scalar(let text, _) = node.kind else { return nil }
        return text
    }

    @Test func theWorkflowParsesAndItsConformCommandsExist() async throws {
        let bytes = [UInt8](try Data(contentsOf: Self.file))
        let root = try #require(try YAML.parse(bytes, file: Self.file.path))
        let steps = mappings(root)
        let scripts = steps.compactMap { step in scalar(step.first { $0.key == "run" }?.value) }
        // Shell lines joined where they continue, then each command that runs conform.
        let commands = scripts.flatMap {
            $0.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        }.filter { $0.hasPrefix("conform ") }
        let subcommands = commands.compactMap { $0.split(separator: " ").dropFirst().first.map(String.init) }
        #expect(subcommands == ["--version", "run", "merge", "verify"], "\(commands)")
        for command in commands where !command.hasPrefix("conform --") {
            let words = command.split(separator: " ").map(String.init)
            let help = await conformInProcess([words[1], "--help"])
            #expect(help.code == 0)
            for option in words.dropFirst(2) where option.hasPrefix("--") {
                #expect(help.out.contains("  \(option) "), "conform \(words[1]) --help does not list \(option)")
            }
        }
        // The options the workflow passes through shell variables.
        #expect(scripts.contains { $0.contains("ca=\"--cacert ") })
        #expect(scripts.contains { $0.contains("sign=\"--sign ") })
        let run = await conformInProcess(["run", "--help"]), merge = await conformInProcess(["merge", "--help"])
        #expect(run.out.contains("  --cacert FILE "))
        #expect(merge.out.contains("  --sign KEY.pem "))
        // Every upload keeps what a failed or could-not-run shard wrote.
        let uploads = steps.filter { scalar($0.first { $0.key == "uses" }?.value)?.hasPrefix("actions/upload") == true }
        #expect(uploads.count == 3)
        let always = uploads.filter { scalar($0.first { $0.key == "if" }?.value) == "always()" }
        #expect(always.count == 2, "the shards' and the certification's uploads run whatever the exit")
        // Credentials come from secrets, never from the file.
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("CONFORM_VAR_appCode: ${{ secrets.CONFORM_VAR_APPCODE }}"))
        #expect(text.contains("scripts/package --out dist"))
        #expect(text.contains("apt-get install -y ./dist/conform_*.deb"))
    }
}
