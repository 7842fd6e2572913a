import ConformReference
import ConformTraffic

/// `--client-faults SPEC` of `serve --check` and `record`: the failures the server side injects on purpose
/// (``ClientFault``), checked against the protocol's endpoint ids.
enum ClientFaultsOption {
    static let spec = OptionSpec(
        "--client-faults", "SPEC", .text(.none), repeatable: true,
        help: """
            Inject a failure the app must recover from (repeatable, combined in order):
            error:M6[:N] (503), timeout:M4[:N] (no answer), no-registration:M2[:N]
            (NO_REGISTRATION, the installation forgotten), slow=3s or slow:M1=10s; N calls
            (1 unless given). Each injected answer carries Conform-Injected-Fault.
            """)

    /// The faults the command line asks for; a value that cannot be read is a usage error naming it.
    static func parse(_ parsed: Arguments, subcommand: String) throws(UsageError) -> [ClientFault] {
        let known = Array(Set(ReferenceEndpoint.all.map(\.id))).sorted { a, b in
            (a.first!, Int(a.dropFirst()) ?? 0) < (b.first!, Int(b.dropFirst()) ?? 0)
        }
        var faults: [ClientFault] = []
        for value in parsed.values("--client-faults") {
            do {
                faults.append(try ClientFault.parse(value, known: known))
            } catch {
                throw UsageError(message: error.description, subcommand: subcommand)
            }
        }
        return faults
    }
}
