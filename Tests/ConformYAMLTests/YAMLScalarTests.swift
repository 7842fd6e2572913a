import ConformYAML
import Testing

@Suite struct YAMLScalarTests {
    /// Resolves the value of `v` in a one-line mapping `v: <text>`.
    private func resolve(_ text: String) throws -> YAMLScalar? {
        try YAML.parse("v: \(text)\n", file: "s.yaml")?["v"]?.resolvedScalar
    }

    @Test(arguments: ["null", "Null", "NULL", "~", ""])
    func plainNullForms(_ text: String) throws {
        #expect(try resolve(text) == .null)
    }

    @Test(arguments: [
        ("true", true), ("True", true), ("TRUE", true), ("false", false), ("False", false), ("FALSE", false),
    ])
    func plainBoolForms(_ text: String, _ value: Bool) throws {
        #expect(try resolve(text) == .bool(value))
    }

    @Test(arguments: [
        ("0", 0), ("42", 42), ("-17", -17), ("+5", 5), ("007", 7), ("0o17", 15), ("0x1F", 31), ("0xff", 255),
        ("9223372036854775807", Int.max),
    ])
    func coreSchemaInts(_ text: String, _ value: Int) throws {
        #expect(try resolve(text) == .int(value))
    }

    @Test(arguments: [
        ("1.5", 1.5), ("-0.25", -0.25), (".5", 0.5), ("1.", 1.0), ("1e3", 1000), ("+2.5E-1", 0.25),
        (".inf", Double.infinity), (".Inf", .infinity), ("+.INF", .infinity), ("-.inf", -.infinity),
        ("92233720368547758070", 92_233_720_368_547_758_070.0),
    ])
    func coreSchemaFloats(_ text: String, _ value: Double) throws {
        #expect(try resolve(text) == .double(value))
    }

    @Test(arguments: [".nan", ".NaN", ".NAN"])
    func notANumber(_ text: String) throws {
        guard case .double(let value) = try resolve(text) else {
            Issue.record("\(text) is not a double")
            return
        }
        #expect(value.isNaN)
    }

    @Test(arguments: [
        "yes", "no", "on", "off", "Yes", "y", "n", "nULL", "tRUE", "0x", "0o8", "0xG", "1_000", "1.2.3", "e3", ".",
        "+", "1e", "0b101", "12:30", "2024-01-01", ".infinity", "nan", "hello world", "0o",
    ])
    func plainTextThatStaysAString(_ text: String) throws {
        #expect(try resolve(text) == .string(text))
    }

    @Test(arguments: ["'true'", "\"null\"", "'42'", "\"1.5\"", "''", "\"~\""])
    func quotedScalarsAreStrings(_ text: String) throws {
        let value = try resolve(text)
        #expect(value == .string(String(text.dropFirst().dropLast())))
    }

    @Test func blockScalarsAreStrings() throws {
        let root = try YAML.parse("a: |\n  42\nb: >-\n  true\n", file: "s.yaml")
        #expect(root?["a"]?.resolvedScalar == .string("42\n"))
        #expect(root?["b"]?.resolvedScalar == .string("true"))
    }

    @Test func explicitTagsWin() throws {
        #expect(try resolve("!!str true") == .string("true"))
        #expect(try resolve("!!str") == .string(""))
        #expect(try resolve("!!int '0x10'") == .int(16))
        #expect(try resolve("!!float 3") == .double(3))
        #expect(try resolve("!!bool 'TRUE'") == .bool(true))
        #expect(try resolve("!!null ''") == .null)
        #expect(try resolve("!something 12") == .string("12"))
    }
}
