internal import CYAML
import ConformDiagnostics

extension YAML.Composer {
    /// Records the error that stopped libyaml, worded as libyaml and PyYAML word it, with a hint on how to fix it.
    mutating func reportSyntaxError(_ parser: yaml_parser_t, in buffer: UnsafeBufferPointer<UInt8>) {
        let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        switch parser.error {
        case YAML_MEMORY_ERROR:
            report(
                SourceMark(line: 1, column: 1), "out of memory while parsing",
                help: "split the file into smaller suites", id: .yamlLimit)
        case YAML_READER_ERROR:
            let mark = YAML.InputCheck.mark(atOffset: Int(parser.problem_offset), in: buffer)
            let value = String(UInt32(bitPattern: parser.problem_value), radix: 16, uppercase: true)
            report(
                mark, "\(problem) (character U+\(String(repeating: "0", count: max(0, 4 - value.count)) + value))",
                help: "remove the character, or write it as an escape inside a double-quoted string",
                id: .yamlEncoding)
        default:
            let mark = SourceMark(parser.problem_mark)
            let context = parser.context.map { String(cString: $0) }
            let message = context.map { "\(problem) (\($0))" } ?? problem
            var help = Self.advice(for: problem)
            if let context, context.hasPrefix("while ") {
                let start = SourceMark(parser.context_mark)
                var words = context.split(separator: " ").dropFirst(2)
                if words.first == "a" || words.first == "an" { words = words.dropFirst() }
                let subject = words.joined(separator: " ")
                if start != mark, !subject.isEmpty {
                    help = (help.map { $0 + "; " } ?? "check the syntax here; ") + "the \(subject) starts at \(start)"
                }
            }
            report(mark, message, help: help ?? "check the syntax at this point", id: .yamlSyntax)
        }
    }

    private static func advice(for problem: String) -> String? {
        switch problem {
        case "did not find expected ',' or ']'":
            "separate items with ',' and close the sequence with ']'"
        case "did not find expected ',' or '}'":
            "separate entries with ',' and close the mapping with '}'"
        case "mapping values are not allowed in this context":
            "quote the value if it contains ': ', or fix the indentation of this key"
        case "found character that cannot start any token":
            "indent with spaces, not tabs, and quote values that start with '@' or '`'"
        case "could not find expected ':'":
            "add ':' after the key, or quote the text if it spans several lines"
        case "did not find expected key":
            "align every key of a mapping in the same column"
        case "did not find expected '-' indicator":
            "align every item of a sequence in the same column"
        case "found unexpected end of stream":
            "close the quoted string or collection that is still open"
        case "found undefined tag handle":
            "use '!!' for core tags, or declare the handle with a %TAG directive"
        case "block sequence entries are not allowed in this context":
            "start the sequence on the line below its key, or quote a value that begins with '- '"
        case "did not find expected node content":
            "write a value here, or quote it"
        default:
            nil
        }
    }
}
