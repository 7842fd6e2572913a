import ConformCore

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
    /// Functions templates may call beyond the built-in generators (e.g. `jwt`).
    public var functions: [String: TemplateFunction]

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
