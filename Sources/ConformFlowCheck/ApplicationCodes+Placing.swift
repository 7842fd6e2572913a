/// What the traces of one check said about the application codes the user named: a code matched through a redacted
/// trace's pseudonym is a note, one found in no trace a warning, one that cannot be told apart among several
/// pseudonyms a problem of the command line.
extension ApplicationCodes {
    public struct Placing: Sendable {
        public let codes: ApplicationCodes
        /// Codes not found in any trace so far.
        public private(set) var absent: Set<String>
        /// Each code that could not be placed, said with the option that fixes it.
        public private(set) var ambiguous: [String] = []

        public init(codes: ApplicationCodes) {
            self.codes = codes
            self.absent = Set(codes.all)
        }

        /// Takes what one trace said; returns the notes to show (a code matched as a pseudonym).
        public mutating func add(_ placed: Resolution, trace: String) -> [String] {
            absent.formIntersection(placed.absent)
            for ambiguity in placed.ambiguous {
                let options = ambiguity.codes.map(codes.described).joined(separator: ", ")
                ambiguous.append(
                    "\(trace) holds \(ambiguity.pseudonyms.count) redacted application codes "
                        + "(\(ambiguity.pseudonyms.joined(separator: ", "))) and \(options) cannot be told apart "
                        + "among them; give the pseudonym instead (\(codes.option(of: ambiguity.codes[0])) "
                        + "\(ambiguity.pseudonyms[0]))")
            }
            return placed.aliases.sorted(by: { $0.key < $1.key }).map { code, pseudonym in
                "note: \(codes.described(code)) is matched as \(pseudonym) in \(trace), the one application code "
                    + "its redaction replaced that no option names"
            }
        }

        /// The warnings, once every trace was read: one per code found in none, in clear or as a pseudonym.
        public var warnings: [String] {
            codes.all.filter(absent.contains).map { code in
                "warning: \(codes.described(code)): this application code never appears in the trace, in clear or "
                    + "as a pseudonym\nhelp: check the code, or the trace it belongs to"
            }
        }
    }
}
