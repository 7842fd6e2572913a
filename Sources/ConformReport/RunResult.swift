import ConformCore

/// The whole result of any command: a suite run, a replay, a diff, a client check, a mock session or a secret scan,
/// in one shape; ``command`` says which.
public struct RunResult: Sendable, Hashable {
    /// How the verdicts add up to an exit status (``RunStatus``).
    public enum Kind: Sendable, Hashable {
        /// Suite runs, client checks and mock sessions: any step that could not run makes the run unable to judge.
        case conformance
        /// Replays and diffs, one step per compared exchange: exchanges without an answer only make the whole
        /// unable to judge when nothing was answered; `skipped` steps are exchanges the input cannot judge.
        case comparison
    }

    public var suites: [SuiteResult]
    public var duration: Double
    public var target: String
    public var kind: Kind
    /// The command the result comes from.
    public var command: Command
    /// How many times the run played its plan (`conform run --repeat N`); each step keeps its worst verdict.
    public var repetitions = 1
    /// The most repetitions a run may have (`--repeat` and reports read back).
    public static let maxRepetitions = 1000
    /// The steps whose verdict changed between repetitions.
    public var flaky: [FlakyStep] = []
    /// Every origin (`scheme://host[:port]`) the run sent a request to, sorted; an adapter or an in-process target
    /// that got origin-form requests is named by its description.
    public var contactedOrigins: [String] = []
    /// Steps that passed and were counted but not kept (``ResultCollector/keepsPasses``): a long replay shown only
    /// on the console keeps the exchanges that did not pass. Counted in ``counts`` and ``stepCount``.
    public var passesNotKept = 0
    /// Steps that did not pass, counted but not kept past ``ResultCollector/maxKeptSteps``, by verdict (a replay
    /// of millions of differing exchanges shown only on the console). Counted in ``counts`` and ``stepCount``.
    public var othersNotKept: [Verdict: Int] = [:]
    /// The retries (`--retry`) of the steps counted but not kept (``passesNotKept``, ``othersNotKept``).
    public var retriesNotKept = 0
    /// How many of the steps counted but not kept were retried.
    public var retriedStepsNotKept = 0
    /// What a suite run covered (its selection, its share of the bundled plan, its shard), which decides whether it
    /// is certifiable (``certifiability``); `nil` for other commands.
    public var scope: RunScope?
    /// Where the verdict comes from: kit, suites, command line, variables, product, times.
    public var provenance: RunProvenance?
    /// What the run needs said once, each with the number of steps it concerns (``RunNotice``).
    public var notices: [RunNotice] = []
    /// What a client check read (exchanges, app events, rules exercised); `nil` for other commands.
    public var checkedTraffic: CheckedTraffic?
    /// What `conform verify` concluded about the bundle whose run this is; `nil` for other commands.
    public var verification: BundleVerification?
    /// The credentials the run was given (the values of the variables its suites send as credentials), never
    /// written anywhere: every reporter hides them wherever they appear (``SecretMasker/init(learningFrom:)``).
    public var secrets: [String] = []
    /// The headers whose whole value is a credential in the run's protocol (its profile's), which every reporter
    /// hides as it hides `Authorization`.
    public var credentialHeaders: [String] = []

    public init(suites: [SuiteResult], duration: Double, target: String, kind: Kind = .conformance) {
        self.suites = suites
        self.duration = duration
        self.target = target
        self.kind = kind
        self.command = kind == .comparison ? .replay : .run
    }

    /// The result of `command`, whose exit status follows the command's ``Command/kind``.
    public init(command: Command, suites: [SuiteResult], duration: Double, target: String) {
        self.init(suites: suites, duration: duration, target: target, kind: command.kind)
        self.command = command
    }

    public var steps: [StepResult] { suites.flatMap(\.steps) }

    /// Every step, suite by suite, without gathering them into one array first: what a pass over a large run's
    /// steps should read (``steps`` copies them all, 100,000 steps about 12 MB and more while the copy grows).
    public var eachStep: some Sequence<StepResult> { suites.lazy.flatMap(\.steps) }

    /// How many steps the run holds.
    public var stepCount: Int {
        suites.reduce(passesNotKept + othersNotKept.values.reduce(0, +)) { $0 + $1.steps.count }
    }

    /// How many retries (`--retry`) the run made, over all its steps, and how many steps needed one.
    public var retries: (count: Int, steps: Int) {
        var out = (count: retriesNotKept, steps: retriedStepsNotKept)
        for suite in suites {
            for step in suite.steps where step.retries > 0 {
                out.count += step.retries
                out.steps += 1
            }
        }
        return out
    }

    /// Number of steps with each verdict.
    public var counts: [Verdict: Int] {
        var out: [Verdict: Int] = passesNotKept > 0 ? [.pass: passesNotKept] : [:]
        for (verdict, count) in othersNotKept { out[verdict, default: 0] += count }
        for suite in suites { for step in suite.steps { out[step.verdict, default: 0] += 1 } }
        return out
    }

    /// What the run means for the process: see ``RunStatus/init(_:)``.
    public var status: RunStatus { RunStatus(self) }

    /// 0 conforms, 1 at least one must/should mismatch, 2 cannot run.
    public var exitCode: Int32 { status.rawValue }
}
