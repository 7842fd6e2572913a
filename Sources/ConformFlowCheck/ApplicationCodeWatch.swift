import ConformCore
import ConformTraffic
import Synchronization

/// The application codes a live check is told (`record --check`, `serve --check`, `capture --check`), watched as
/// the traffic is recorded: each code is matched as given and as the pseudonym the recording's own redactor gives
/// it, and the codes that never appeared are named when the recording stops.
public final class ApplicationCodeWatch: Sendable {
    public let codes: ApplicationCodes
    /// Each code given → its pseudonym in this recording (none for a code redaction keeps, or with redaction off).
    public let aliases: [String: String]
    /// The check's configuration for `profile`, told the codes.
    public let configuration: FlowCheckConfiguration
    private let finder: CredentialFinder?
    private let seen = Mutex<Set<String>>([])

    public init(codes: ApplicationCodes, profile: ProtocolProfile, redactor: Redactor?) {
        self.codes = codes
        let aliases = Dictionary(
            codes.all.compactMap { code in redactor?.pseudonym(ofCredential: code).map { (code, $0) } },
            uniquingKeysWith: { first, _ in first })
        self.aliases = aliases
        self.configuration = codes.applied(to: FlowCheckConfiguration(profile: profile), aliases: aliases)
        self.finder = codes.isEmpty ? nil : CredentialFinder(applicationsOf: profile)
    }

    /// Notes the application codes a recorded (redacted) exchange carries.
    public func observe(_ exchange: RecordedExchange) {
        guard let values = finder?.values(in: exchange.request), !values.isEmpty else { return }
        seen.withLock { if $0.count < 100_000 { $0.formUnion(values) } }
    }

    /// One warning (with its `help:` line) per code that never appeared, in the order given.
    public var warnings: [String] {
        let found = seen.withLock { $0 }
        return codes.all.filter { !found.contains($0) && !(aliases[$0].map { found.contains($0) } ?? false) }.map {
            "warning: \(codes.described($0)): this application code never appeared in the traffic\n"
                + "help: check the code, or the app's configuration\n"
        }
    }
}
