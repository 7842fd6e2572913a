import ConformFlowCheck

/// The application codes `check`, `record --check` and `serve --check` are told, and what `check` says about where
/// it found them: a code matched through a redacted trace's pseudonym is noted, one found nowhere is a warning,
/// one that cannot be told apart among several pseudonyms is a usage error.
extension CheckCommand {
    /// The codes of the options and of their environment variables (`CONFORM_RESTRICTED`, …).
    static func applicationCodes(_ parsed: Arguments) -> ApplicationCodes {
        ApplicationCodes(
            restricted: parsed.codes("--restricted"), accessRestricted: parsed.codes("--restricted-access"),
            jwt: parsed.codes("--jwt"))
    }

    /// What the traces of one check said about the codes.
    struct CodePlacing {
        let codes: ApplicationCodes
        /// Codes not found in any trace so far.
        var absent: Set<String>
        var ambiguous: [String] = []

        init(codes: ApplicationCodes) {
            self.codes = codes
            self.absent = Set(codes.all)
        }

        mutating func add(_ placed: ApplicationCodes.Resolution, trace: String, io: CommandIO) {
            absent.formIntersection(placed.absent)
            for (code, pseudonym) in placed.aliases.sorted(by: { $0.key < $1.key }) {
                io.err.write(
                    "note: \(codes.described(code)) is matched as \(pseudonym) in \(trace), the one "
                        + "application code its redaction replaced that no option names\n")
            }
            for ambiguity in placed.ambiguous {
                let options = ambiguity.codes.map(codes.described).joined(separator: ", ")
                ambiguous.append(
                    "\(trace) holds \(ambiguity.pseudonyms.count) redacted application codes "
                        + "(\(ambiguity.pseudonyms.joined(separator: ", "))) and \(options) cannot be told apart "
                        + "among them; give the pseudonym instead (\(codes.option(of: ambiguity.codes[0])) "
                        + "\(ambiguity.pseudonyms[0]))")
            }
        }

        /// Warns about the codes found in no trace; a code that cannot be placed is a usage error.
        func finish(io: CommandIO) throws(UsageError) {
            if let first = ambiguous.first { throw UsageError(message: first, subcommand: "check") }
            for code in codes.all where absent.contains(code) {
                io.err.write(
                    "warning: \(codes.described(code)): this application code never appears in the "
                        + "trace, in clear or as a pseudonym\n"
                        + "help: check the code, or the trace it belongs to\n")
            }
        }
    }
}
