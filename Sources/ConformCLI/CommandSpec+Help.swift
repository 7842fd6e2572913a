/// Help texts rendered from the declarations, in the OVERVIEW / USAGE / ARGUMENTS / OPTIONS / SUBCOMMANDS layout.
extension CommandSpec {
    /// Every command, in the order the root help lists them.
    static let all: [CommandSpec] = [
        run, explore, merge, verify, validate, serve, mock, record, capture, replay, diff, check, importHAR, exportHAR,
        scan, ca,
        help, completion, man,
    ]

    static func named(_ name: String) -> CommandSpec? { all.first { $0.name == name } }

    /// The column help text starts in, after `  --name VALUE`.
    static let helpColumn = 26

    /// `--help` for this command.
    var helpText: String {
        var sections = ["OVERVIEW: \(overview)\n", "USAGE: \(usage)\n"]
        if !arguments.isEmpty {
            sections.append("ARGUMENTS:\n" + arguments.map { Self.entry($0.name, $0.help) }.joined())
        }
        sections.append("OPTIONS:\n" + options.map { Self.entry($0.label, $0.help) }.joined())
        if !discussion.isEmpty { sections.append(discussion + "\n") }
        if !exitCodes.isEmpty { sections.append("EXIT CODES:\n" + Self.indented(exitCodes, by: 2) + "\n") }
        return sections.joined(separator: "\n")
    }

    /// `conform --help`: what Conform is and every command's abstract.
    static var rootHelp: String {
        var out = """
            OVERVIEW: Certify implementations of the mobile personalization-with-authorization flow.

            Conform plays YAML suites of expected HTTP exchanges against an implementation (the embedded
            reference by default, a live backend, a broker, a mock, or an SDK adapter), diffs what comes back,
            and reports like a certification tool.

            USAGE: conform <subcommand> [options]

            OPTIONS:

            """
        out += entry("--version", "Show the version.")
        out += entry("-h, --help", "Show help information.")
        out += "\nSUBCOMMANDS:\n"
        for command in all { out += entry(command.name, command.abstract) }
        out += "\n  See 'conform help <subcommand>' or 'conform <subcommand> --help' for detailed help.\n\n"
        return out
    }

    /// `  NAME                    help`, continuation lines under the help column; a long name gets its own line.
    static func entry(_ name: String, _ help: String) -> String {
        let lead = "  " + name
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        var out: String
        if lead.count >= helpColumn - 1 {
            out = lead + "\n" + String(repeating: " ", count: helpColumn) + lines[0]
        } else {
            out = lead + String(repeating: " ", count: helpColumn - lead.count) + lines[0]
        }
        for line in lines.dropFirst() { out += "\n" + String(repeating: " ", count: helpColumn) + line }
        return out + "\n"
    }

    static func indented(_ text: String, by n: Int) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { String(repeating: " ", count: n) + $0 }
            .joined(separator: "\n")
    }
}

extension OptionSpec {
    /// `-h, --help`, `--timeout SECONDS`.
    var label: String {
        let name = self.name == "--help" ? "-h, --help" : self.name
        if case .flagOrInlineValue = kind { return value.isEmpty ? name : "\(name)[=\(value)]" }
        return value.isEmpty ? name : "\(name) \(value)"
    }
}
