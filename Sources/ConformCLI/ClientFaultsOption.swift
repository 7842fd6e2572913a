import ConformCore
import ConformProxy
import ConformReference

/// `--client-faults SPEC` of `serve --check`, `record` and `mock`: the failures the server side injects on purpose
/// (``ClientFault``), checked against the protocol's endpoint ids.
enum ClientFaultsOption {
    static let spec = OptionSpec(
        "--client-faults", "SPEC", .text(.none), repeatable: true,
        help: """
            Inject a failure the app must recover from (repeatable, combined in order):
            error:M6[:N] (503), reset:M6[:N] (connection closed), timeout:M4[:N] (no
            answer), no-registration:M2[:N]
            (NO_REGISTRATION, the installation forgotten), slow=3s or slow:M1=10s,
            offline=30s or offline:M6=30s (connections refused for the window); N calls
            (1 unless given), or P% of them (error:M7:30%, drawn from --seed). Each injected
            answer carries Conform-Injected-Fault (docs/app-testing.md).
            """)

    static let seedSpec = OptionSpec(
        "--seed", "N", .integer(0...Int(Int32.max)),
        help: "With --client-faults: the seed chances (P%) are drawn from (default: a random one, printed).")

    /// The transport that injects the faults `parsed` asks for below `inner`, announced on the console with its seed;
    /// `inner` itself when none are asked for.
    static func wrap(
        _ inner: any Transport, _ parsed: Arguments, holdLimit: Duration, subcommand: String, io: CommandIO
    ) throws(UsageError) -> any Transport {
        let faults = try parse(parsed, subcommand: subcommand)
        let given = try parsed.integer("--seed")
        guard !faults.isEmpty else {
            if given != nil {
                throw UsageError(message: "--seed seeds --client-faults; give faults too", subcommand: subcommand)
            }
            return inner
        }
        let seed = UInt64(given ?? Int.random(in: 0...Int(Int32.max)))
        var line = "Client faults: " + faults.map(\.description).joined(separator: ", ")
        if faults.contains(where: { $0.probability != nil }) { line += " (seed \(seed); --seed \(seed) again)" }
        io.out.write(line + "\n")
        let out = io.out
        return ClientFaultTransport(
            inner: inner, faults: faults, profile: ConformCommand.profile, holdLimit: holdLimit, seed: seed,
            offline: OfflineSwitch { out.write("Client faults: \($0)\n") })
    }

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
