import ConformCore
import ConformYAML
import Testing

@Suite struct YAMLHostileInputTests {
    /// Nine levels of nine-item lists of aliases: 9^9 (387 million) nodes once expanded.
    static let billionLaughs: String = {
        var lines = ["a: &a [\(Array(repeating: "lol", count: 9).joined(separator: ", "))]"]
        let names = Array("abcdefghi")
        for level in 1..<9 {
            let items = Array(repeating: "*\(names[level - 1])", count: 9).joined(separator: ", ")
            lines.append("\(names[level]): &\(names[level]) [\(items)]")
        }
        return lines.joined(separator: "\n") + "\n"
    }()

    @Test func aliasBombIsRefusedAtTheAliasThatCrossesTheLimit() {
        #expect(
            renderedFailure(Self.billionLaughs) == """
                suites/x.yaml:7:8: error: document expands to more than 1000000 nodes once aliases are resolved
                    7 | g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
                      |        ^
                help: use fewer aliases to large nodes (this looks like an alias bomb), or split the document
                """)
    }

    @Test func nodeLimitAlsoCountsPlainNodes() throws {
        let text = "[" + Array(repeating: "1", count: 100).joined(separator: ",") + "]"
        let failure = parseFailure(text, limits: YAMLLimits(maxNodes: 50))
        #expect(failure?.diagnostics.map(\.mark) == [mark(1, 102)])
        #expect(try YAML.parse(text, file: "n.yaml", limits: YAMLLimits(maxNodes: 101))?.sequenceItems?.count == 100)
    }

    @Test func hundredThousandOpenBracketsAreRefusedWithoutCrashing() {
        let text = String(repeating: "[", count: 100_000)
        #expect(
            renderedFailure(text).split(separator: "\n").first
                == "suites/x.yaml:1:201: error: collections are nested deeper than 200 levels")
    }

    @Test func deepBlockNestingIsRefused() {
        let text = String(repeating: "- ", count: 100_000) + "x\n"
        #expect(parseFailure(text)?.diagnostics.map(\.message) == ["collections are nested deeper than 200 levels"])
        let mapping = (0..<300).map { String(repeating: " ", count: $0) + "k:" }.joined(separator: "\n")
        #expect(
            parseFailure(mapping, limits: YAMLLimits(maxDepth: 10))?.diagnostics.map(\.mark) == [mark(11, 11)])
    }

    @Test func nestingAtTheLimitIsAccepted() throws {
        let text = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(try YAML.parse(text, file: "d.yaml")?.sequenceItems?.count == 1)
    }

    @Test func oversizedFileIsRefusedBeforeParsing() {
        let bytes = Array("a: [".utf8) + Array(repeating: UInt8(ascii: "x"), count: 2000)
        #expect(
            parseFailure(bytes, limits: YAMLLimits(maxBytes: 1024))?.rendered(source: "a: [")
                == """
                suites/x.yaml:1:1: error: file is 2004 bytes, more than the limit of 1024 bytes
                    1 | a: [
                      | ^
                help: split the file into smaller suites, or raise the size limit
                """)
    }

    @Test(
        arguments: [
            ([0xFF], "1:6", "0xFF"),
            ([0xC3, 0x28], "1:6", "0xC3"),
            ([0xE2, 0x82], "1:6", "0xE2"),
            ([0xED, 0xA0, 0x80], "1:6", "0xED"),
            ([0xC0, 0xAF], "1:6", "0xC0"),
            ([0xF4, 0x90, 0x80, 0x80], "1:6", "0xF4"),
        ] as [([UInt8], String, String)])
    func invalidUTF8IsRefusedAtTheFirstBadByte(_ bad: [UInt8], _ position: String, _ byte: String) {
        let bytes = Array("a: é".utf8) + [UInt8(ascii: "x")] + bad + Array(" y\n".utf8)
        let failure = parseFailure(bytes)
        #expect(
            failure?.diagnostics.map { "\($0.mark!) \($0.message)" } == ["\(position) invalid UTF-8 (byte \(byte))"])
    }

    @Test func invalidUTF8OnALaterLine() {
        let bytes = Array("a: 1\r\nbb: 'ü".utf8) + [0x80] + Array("'\n".utf8)
        #expect(
            parseFailure(bytes)?.rendered(source: "a: 1\r\nbb: 'ü?'\n") == """
                suites/x.yaml:2:7: error: invalid UTF-8 (byte 0x80)
                    2 | bb: 'ü?'
                      |       ^
                help: save the file as UTF-8; the bytes from here on do not form a UTF-8 character
                """)
    }

    @Test func secondDocumentIsRefused() {
        #expect(
            renderedFailure("a: 1\n---\nb: 2\n") == """
                suites/x.yaml:2:1: error: expected a single document in the stream, but found another document
                    2 | ---
                      | ^
                help: a suite file holds one document; remove this '---' and what follows, or move it to its own file
                """)
    }

    /// Seeded garbage (the same 200 inputs every run, so a failure reproduces): each either parses or fails with
    /// at least one diagnostic that has a message and points inside the input, one line past its end at most.
    @Test func garbageParsesOrFailsAtAPlaceInsideIt() {
        var generator = SplitMix64(seed: 0x636F_6E66_6F72_6D)
        let alphabet = Array("[]{}:-,&*!|>'\"%@`#? \n\tab1".utf8)
        var (parsed, refused) = (0, 0)
        for round in 0..<200 {
            let bytes = (0..<Int.random(in: 1...200, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator)!
            }
            do {
                _ = try YAML.parse(bytes, file: "g.yaml")
                parsed += 1
            } catch {
                refused += 1
                let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
                #expect(!error.diagnostics.isEmpty, "round \(round)")
                for diagnostic in error.diagnostics {
                    #expect(!diagnostic.message.isEmpty, "round \(round)")
                    let mark = diagnostic.mark ?? ConformYAMLTests.mark(0, 0)
                    #expect(
                        (1...lines + 1).contains(mark.line) && mark.column >= 1,
                        "round \(round): \(mark) outside \(lines) lines")
                }
            }
        }
        // The alphabet makes both outcomes common; all of one kind would mean the inputs stopped varying.
        #expect(parsed > 0 && refused > 0, "parsed \(parsed), refused \(refused)")
    }
}
