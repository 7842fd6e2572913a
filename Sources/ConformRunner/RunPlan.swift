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
    /// Set by the runner for a fail-fast run: shared by every flow, tripped by the first failure.
    var halt: Halt?

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

/// The first failure of a fail-fast run: once tripped, no flow starts another step.
final class Halt: Sendable {
    private let state = Mutex<String?>(nil)

    /// Why the run stopped, once it has.
    var reason: String? { state.withLock { $0 } }

    /// Records the first failure; later ones change nothing.
    func trip(_ reason: String) { state.withLock { if $0 == nil { $0 = reason } } }
}
