import ConformCore
import ConformReport
import Foundation

/// One run of suites, assembled in one place for `conform run`, `conform verify` (a bundle's plan played against its
/// log), `conform diff` of suites and `ConformTesting`: the plan, with its variables in their order (the target's
/// base URLs, then `CONFORM_VAR_*`, then the caller's), the profile's template functions and the credentials learned
/// from where the plan sends them; and the session that shows and reports it with those credentials masked, its
/// exit status the result's.
///
/// ```swift
/// let run = SuiteRun(suites: loaded.suites, targetDefaults: bases, targetDescription: "…", profile: profile)
/// let outcome = await run.run(through: transport, in: run.session(console: ConsoleReporter(sink: out)))
/// ```
public struct SuiteRun: Sendable {
    public var plan: RunPlan
    /// Every suite of the plan before selection and sharding: what its provenance and credentials are learned from.
    public var planSuites: [Suite] {
        didSet { credentialNames = Suite.credentialVariables(of: planSuites, profile: profile) }
    }
    public var profile: ProtocolProfile {
        didSet { credentialNames = Suite.credentialVariables(of: planSuites, profile: profile) }
    }
    /// The credential variables of ``planSuites``, learned once: finding them walks every step of every suite, and the
    /// run asks for its credentials several times (the console's masker, the session, the provenance, a bundle).
    private var credentialNames: Set<String>

    /// A run of `suites` (selected and sharded out of `planSuites`, by default all of them) against a target whose
    /// base URLs are `targetDefaults`.
    public init(
        suites: [Suite], planSuites: [Suite]? = nil, overrides: [String: String] = [:],
        environment: [String: String] = [:], targetDefaults: [String: String], exchangeTimeout: Duration = .seconds(10),
        maxConcurrentSuites: Int = .max, targetDescription: String, profile: ProtocolProfile
    ) {
        plan = RunPlan(
            suites: suites, overrides: overrides, environment: environment, targetDefaults: targetDefaults,
            exchangeTimeout: exchangeTimeout, maxConcurrentSuites: maxConcurrentSuites,
            targetDescription: targetDescription, functions: profile.functions)
        self.planSuites = planSuites ?? suites
        self.profile = profile
        credentialNames = Suite.credentialVariables(of: planSuites ?? suites, profile: profile)
    }

    /// The variables given to the run: the target's base URLs, overridden by the environment's, overridden by the
    /// caller's.
    public var given: [String: String] {
        plan.targetDefaults.merging(plan.environment.merging(plan.overrides) { _, new in new }) { _, new in new }
    }

    /// The run's credentials: masked in every report, left out of a bundle, known to a bundle log's redactor.
    public var credentials: RunCredentials {
        RunCredentials(names: credentialNames, variables: given, profile: profile)
    }

    /// The provenance of the run, started now, its variables with the credentials masked.
    public func provenance(commandLine: [String], product: ProductIdentity? = nil) -> RunProvenance {
        let credentials = self.credentials
        return RunProvenance(
            plan: planSuites, commandLine: commandLine, variables: given, product: product,
            keep: credentials.publicValues, credentials: credentials.names)
    }

    /// What hides the run's credentials on a console (``ConsoleReporter/masker``).
    public var masker: SecretMasker { SecretMasker(secrets: credentials.values) }

    /// The session of the run: `console` (give a ``ConsoleReporter`` ``masker``), the report files, the shard's
    /// place, the scope and the provenance, every report file hiding the run's credentials.
    public func session(
        console: (any RunReporter)?, reports: [ReportTarget] = [], placement: ShardPlacement? = nil,
        scope: RunScope? = nil, provenance: RunProvenance? = nil
    ) -> Session {
        Session(
            console: console, reports: reports, placement: placement, scope: scope, provenance: provenance,
            secrets: credentials.values, credentialHeaders: profile.credentialHeaderNames)
    }

    /// Runs the plan through `transport` in `session`: the events as they come, the result, the exit status. The
    /// runner keeps every exchange on disk when the session writes reports (memory stays flat however long the
    /// run), else those of the steps that did not pass.
    ///
    /// Run `times` over, the repetitions run first (each told to `repetition`), then the session shows each step
    /// once, with its worst verdict.
    /// `retention`, when given, is what the result keeps of each exchange instead.
    public func run(
        through transport: any Transport, in session: Session, times: Int = 1,
        retention: Runner.Retention? = nil, repetition: @escaping @Sendable (Int, RunResult) -> Void = { _, _ in }
    ) async -> Session.Outcome {
        var kept = retention ?? .failures
        if retention == nil, session.writesReports { kept = (try? ExchangeSpool()).map { .spool($0) } ?? .memory }
        let runner = Runner(transport: transport, retention: kept)
        let plan = self.plan
        return await session.run { events in
            guard times > 1 else { return await runner.run(plan, events: events) }
            let result = await runner.run(plan, times: times, repetition: repetition)
            result.replay(to: events)
            return result
        }
    }
}
