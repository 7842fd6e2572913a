import ConformCore
import Synchronization

/// What to run: suites, variable overrides, and limits.
public struct RunPlan: Sendable {
    public var suites: [Suite]
    /// `--var k=v` values; they win over the environment and suite defaults.
    public var overrides: [String: String]
    /// `CONFORM_VAR_<name>` values from the environment.
    public var environment: [String: String]
    /// Defaults supplied by the target (base URLs), below suite defaults only when the suite leaves them empty.
    public var targetDefaults: [String: String]
    /// How long one exchange may take.
    public var exchangeTimeout: Duration
    /// How many suites run at once (all by default); the flows of one suite always run together.
    public var maxConcurrentSuites: Int
    /// A description of the implementation under test, for reports.
    public var targetDescription: String
    /// Functions templates may call beyond the built-in generators (`ProtocolProfile.functions`).
    public var functions: [String: TemplateFunction]
    /// Start no step after the first that fails or cannot run; what did not start is `skipped` ("not run").
    public var failFast = false
    /// Hosts requests may go to beyond the target's base URLs (`--allow-host`): `host` or `host:port`.
    public var allowedHosts: [String] = []
    /// When set, `uuid`, `digits` and `random` draw from this seed (per suite and flow) instead of at random, so
    /// the same plan renders the same requests again: a bundle's run and its verification (``SeededGenerators``).
    public var generatorSeed: String?
    /// The credential variables the suites send with the profile's public defaults (the embedded reference's test
    /// codes) to a live implementation, because the run was given no value: when the implementation refuses most
    /// of the run with 401/403, the run could not run (``Runner/refusingDefaultCredentials(_:names:)``).
    public var defaultCredentials: [String] = []
    /// Set by the runner for a fail-fast run: shared by every flow, tripped by the first failure.
    var halt: Halt?
    /// Set by the runner: the origins its requests went to, and ``originPolicy`` worked out once (`nil` when the
    /// plan names no target: no ``targetDefaults``).
    var contacted: OriginLog?
    var policy: OriginPolicy?

    /// Where requests may go: the target's base URLs, the values the user gave those names (`--var`,
    /// `CONFORM_VAR_`), and ``allowedHosts``. A suite's own defaults do not widen it; the runner adds the origins
    /// the implementation itself hands out in captured values (a base URL). A plan with no ``targetDefaults``
    /// names no target, and its suites' URLs are not confined (a library caller's own plan).
    public var originPolicy: OriginPolicy {
        var bases = Array(targetDefaults.values)
        for name in targetDefaults.keys {
            if let value = overrides[name] { bases.append(value) }
            if let value = environment[name] { bases.append(value) }
        }
        return OriginPolicy(bases: bases, allowedHosts: allowedHosts)
    }

    public init(
        suites: [Suite], overrides: [String: String] = [:], environment: [String: String] = [:],
        targetDefaults: [String: String] = [:], exchangeTimeout: Duration = .seconds(10),
        maxConcurrentSuites: Int = .max,
        targetDescription: String = "", functions: [String: TemplateFunction] = [:]
    ) {
        self.suites = suites
        self.overrides = overrides
        self.environment = environment
        self.targetDefaults = targetDefaults
        self.exchangeTimeout = exchangeTimeout
        self.maxConcurrentSuites = maxConcurrentSuites
        self.targetDescription = targetDescription
        self.functions = functions
    }

    /// The environment's `CONFORM_VAR_name=value` entries as overrides.
    public static func variables(fromEnvironment env: [String: String]) -> [String: String] {
        var out: [String: String] = [:]
        for (key, value) in env where key.hasPrefix("CONFORM_VAR_") {
            out[String(key.dropFirst("CONFORM_VAR_".count))] = value
        }
        return out
    }
}

/// The origins a run's requests went to, from every flow, and those the implementation itself pointed to.
final class OriginLog: Sendable {
    private struct State {
        var contacted: Set<String> = []
        var announced: Set<String> = []
        /// Cleartext origins an HTTPS answer announced, each with the notice that says so, in order.
        var cleartext: [(origin: String, notice: String)] = []
    }

    private let state = Mutex(State())

    /// Notes the origin of `url`, or `originForm` (the target's description) for an origin-form URL.
    func note(_ url: String, originForm: String) {
        let origin = OriginPolicy.origin(of: url) ?? originForm
        _ = state.withLock { $0.contacted.insert(origin) }
    }

    /// Learns the origins of absolute URLs captured from the implementation's responses (a base URL it hands out,
    /// as M12 does): the implementation may send its clients there, so the run may follow.
    ///
    /// An `http://` URL announced in the answer to an `https://` request is not learnt: the run does not follow an
    /// HTTPS target to cleartext, where credentials would travel unencrypted. It is kept, with a notice naming it
    /// (``cleartext(_:)``, ``cleartextNotices``).
    func learn(from captured: [String: JSONValue], answering url: String = "") {
        var origins: [String] = []
        var downgrades: [(origin: String, notice: String)] = []
        // Worked out only when a captured value is a URL: most answers hand out none.
        var secureAnswer: Bool?
        for value in captured.values {
            guard case .string(let text) = value, text.utf8.count <= 2048, let origin = OriginPolicy.origin(of: text)
            else { continue }
            let secure = secureAnswer ?? (OriginPolicy.origin(of: url)?.hasPrefix("https://") == true)
            secureAnswer = secure
            guard secure, origin.hasPrefix("http://") else {
                origins.append(origin)
                continue
            }
            let notice =
                "the HTTPS target announced the cleartext base URL \(HTTPSyntax.quoted(text)) (answering "
                + "\(URLParts(url).origin)\(URLParts(url).path)): the run does not follow it to cleartext, so the steps "
                + "that would go there are not sent; make the implementation announce an https:// URL, or pass "
                + "--allow-host \(URLParts(origin).authority) to follow it anyway"
            downgrades.append((origin, notice))
        }
        if origins.isEmpty && downgrades.isEmpty { return }
        state.withLock { state in
            state.announced.formUnion(origins)
            for downgrade in downgrades where !state.cleartext.contains(where: { $0.origin == downgrade.origin }) {
                state.cleartext.append(downgrade)
            }
        }
    }

    /// The notice of the cleartext origin of `url`, when an HTTPS answer announced it (see ``learn(from:answering:)``).
    func cleartext(_ url: String) -> String? {
        guard let origin = OriginPolicy.origin(of: url) else { return nil }
        return state.withLock { $0.cleartext.first { $0.origin == origin }?.notice }
    }

    /// The notices of every cleartext origin an HTTPS answer announced, in the order they came.
    var cleartextNotices: [String] { state.withLock { $0.cleartext.map(\.notice) } }

    /// Whether the implementation handed out `url`'s origin in a response.
    func announced(_ url: String) -> Bool {
        guard let origin = OriginPolicy.origin(of: url) else { return false }
        return state.withLock { $0.announced.contains(origin) }
    }

    var sorted: [String] { state.withLock { $0.contacted.sorted() } }
}

/// The first failure of a fail-fast run: once tripped, no flow starts another step.
final class Halt: Sendable {
    private let state = Mutex<String?>(nil)

    /// Why the run stopped, once it has.
    var reason: String? { state.withLock { $0 } }

    /// Records the first failure; later ones change nothing.
    func trip(_ reason: String) { state.withLock { if $0 == nil { $0 = reason } } }
}
