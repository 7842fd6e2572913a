import ConformCore
import ConformReport
import ConformTraffic

/// The application codes a check is told (`--restricted`, `--restricted-access`, `--jwt`), as the user knows them:
/// in clear, or as the pseudonyms a redacted recording holds. In a redacted trace a code in clear is matched through
/// the metadata's pseudonyms of the profile's application role.
public struct ApplicationCodes: Sendable, Hashable {
    public var restricted: [String]
    public var accessRestricted: [String]
    public var jwt: [String]

    public init(restricted: [String] = [], accessRestricted: [String] = [], jwt: [String] = []) {
        self.restricted = restricted
        self.accessRestricted = accessRestricted
        self.jwt = jwt
    }

    /// Every code given, each once, in the order given.
    public var all: [String] {
        var seen: Set<String> = []
        return (restricted + accessRestricted + jwt).filter { seen.insert($0).inserted }
    }

    public var isEmpty: Bool { all.isEmpty }

    /// `configuration` with these codes: each kind given replaces the reference's defaults, and each code stands
    /// for itself and for its alias (the pseudonym it has in the trace).
    public func applied(
        to configuration: FlowCheckConfiguration, aliases: [String: String] = [:]
    ) -> FlowCheckConfiguration {
        var out = configuration
        func matched(_ codes: [String]) -> Set<String> { Set(codes + codes.compactMap { aliases[$0] }) }
        if !restricted.isEmpty { out.restrictedApplicationCodes = matched(restricted) }
        if !accessRestricted.isEmpty { out.accessRestrictedApplicationCodes = matched(accessRestricted) }
        if !jwt.isEmpty { out.jwtApplicationCodes = matched(jwt) }
        return out
    }

    /// How the codes are found in one trace.
    public struct Resolution: Sendable, Hashable {
        /// A code given in clear → the pseudonym that stands for it in the trace.
        public var aliases: [String: String] = [:]
        /// Codes that appear in the trace neither as given nor through a pseudonym.
        public var absent: [String] = []
        /// Codes given in clear whose pseudonym cannot be told among several, with the candidates.
        public var ambiguous: [Ambiguity] = []

        /// Nothing to place: no code was given.
        public init() {}

        public struct Ambiguity: Sendable, Hashable {
            public var codes: [String]
            public var pseudonyms: [String]

            public init(codes: [String], pseudonyms: [String]) {
                self.codes = codes
                self.pseudonyms = pseudonyms
            }
        }
    }

    /// Matches the codes in a trace whose application role holds `seen` (clear values or pseudonyms) and whose
    /// redaction replaced the application role by `pseudonyms`: a code seen as given is itself; the one code given
    /// in clear that is not seen stands for the one pseudonym seen that no code given names; several such codes, or
    /// several such pseudonyms, cannot be told apart (the pseudonym is derived under a key the recording does not
    /// keep, so nothing else can tell which is which).
    public func resolve(seen: Set<String>, pseudonyms: [String]) -> Resolution {
        var resolution = Resolution()
        let given = all
        let unseen = given.filter { !seen.contains($0) }
        let inClear = unseen.filter { !Pseudonymizer.isPseudonym($0) }
        var candidates: [String] = []
        for pseudonym in pseudonyms where seen.contains(pseudonym) && !given.contains(pseudonym) {
            if !candidates.contains(pseudonym) { candidates.append(pseudonym) }
        }
        if inClear.count == 1, candidates.count == 1 {
            resolution.aliases[inClear[0]] = candidates[0]
        } else if !inClear.isEmpty, !candidates.isEmpty {
            resolution.ambiguous.append(Resolution.Ambiguity(codes: inClear, pseudonyms: candidates))
        }
        let placed = Set(resolution.aliases.keys).union(resolution.ambiguous.flatMap(\.codes))
        resolution.absent = unseen.filter { !placed.contains($0) }
        return resolution
    }

    /// How the codes are found in `trace`: its values of the profile's application role (one pass over it), and the
    /// pseudonyms its metadata names for that role (or, when it names none, the pseudonyms among those values).
    public func place(in trace: Trace, profile: ProtocolProfile) async throws -> Resolution {
        guard !isEmpty, let role = profile.redaction.applicationRole,
            let seen = try await Self.seen(in: trace, profile: profile)
        else { return Resolution() }
        var pseudonyms = try trace.redactedCredentials().pseudonyms(of: role)
        if pseudonyms.isEmpty {
            // A trace redacted before roles were named: the pseudonyms found where the role is carried are its.
            pseudonyms = seen.filter(Pseudonymizer.isPseudonym).sorted()
        }
        return resolve(seen: seen, pseudonyms: pseudonyms)
    }

    /// A code as messages show it: a pseudonym as it is, a code in clear masked as reports mask credentials
    /// (``SecretMasker/masked(_:)``), so no warning or note puts it in a log.
    public static func shown(_ code: String) -> String {
        Pseudonymizer.isPseudonym(code) ? code : SecretMasker.masked(code)
    }

    /// The option each code was given with and the code as messages show it (`--restricted ••••9f2c`).
    public func described(_ code: String) -> String { "\(option(of: code)) \(Self.shown(code))" }

    /// The option each code was given with, for messages (`--restricted`).
    public func option(of code: String) -> String {
        restricted.contains(code) ? "--restricted" : accessRestricted.contains(code) ? "--restricted-access" : "--jwt"
    }

    /// The values of the profile's application role in a trace, read in one pass (`nil` when the profile names no
    /// application role).
    public static func seen(in trace: Trace, profile: ProtocolProfile) async throws -> Set<String>? {
        guard let finder = CredentialFinder(applicationsOf: profile) else { return nil }
        var seen: Set<String> = []
        for try await exchange in trace.exchanges() {
            for value in finder.values(in: exchange.request) where seen.count < 100_000 { seen.insert(value) }
        }
        return seen
    }
}
