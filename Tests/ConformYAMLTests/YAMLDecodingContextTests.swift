import ConformDiagnostics
import ConformYAML
import Testing

@Suite struct YAMLDecodingContextTests {
    struct Reader: YAMLDecodingContext {
        let file = "c.yaml"
        var diagnostics: [Diagnostic] = []
        var defaultID: DiagnosticID { DiagnosticID("test.config-invalid") }
    }

    @Test func everyProblemIsCollectedInFileOrderWithItsId() throws {
        let text = """
            name: [a]
            enabled: maybe
            tags: x
            colr: red
            """
        let root = try #require(try YAML.parse(Array(text.utf8), file: "c.yaml"))
        var reader = Reader()
        var seen: [String] = []
        for (key, value) in reader.pairs(root, allowed: ["name", "enabled", "tags", "color"], in: "a config") {
            switch key {
            case "name": _ = reader.string(value, key)
            case "enabled": _ = reader.bool(value, key)
            case "tags": _ = reader.strings(value, key)
            default: seen.append(key)
            }
        }
        reader.error(root, "a problem of the model itself")
        let failure = try #require(reader.failure)
        #expect(
            failure.diagnostics.map { "\($0.mark!) \($0.id) \($0.message) | \($0.help ?? "")" } == [
                "1:1 test.config-invalid a problem of the model itself | ",
                "1:7 yaml.wrong-type name must be text, found a list | write it as a quoted string",
                "2:10 yaml.wrong-type enabled must be true or false | write true or false",
                "3:7 yaml.wrong-type tags must be a list of strings | write [a, b] or one '- item' per line",
                "4:1 yaml.unknown-key unknown key 'colr' in a config | did you mean 'color'?",
            ])
        #expect(seen.isEmpty)
    }

    @Test func noProblemNoFailure() throws {
        let root = try #require(try YAML.parse(Array("a: 1".utf8), file: "c.yaml"))
        var reader = Reader()
        #expect(reader.pairs(root, allowed: ["a"], in: "x").map(\.key) == ["a"])
        #expect(reader.failure == nil)
    }

    @Test func aScalarWhereAMappingBelongsNamesWhatWasFound() throws {
        let root = try #require(try YAML.parse(Array("7".utf8), file: "c.yaml"))
        var reader = Reader()
        #expect(reader.pairs(root, allowed: ["a"], in: "a config").isEmpty)
        #expect(reader.failure?.diagnostics.map(\.message) == ["a config must be a mapping, found a number (7)"])
    }
}
