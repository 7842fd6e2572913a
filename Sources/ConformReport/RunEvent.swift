import ConformCore

/// What the runner reports as it goes; reporters consume these.
public enum RunEvent: Sendable {
    case runStarted(RunPlanSummary)
    case suiteStarted(Suite)
    case stepFinished(StepResult)
    case suiteFinished(SuiteResult)
    case runFinished(RunResult)
}

/// The parts of a plan reporters need before results arrive.
public struct RunPlanSummary: Sendable, Hashable {
    public var suiteCount: Int
    public var stepCount: Int
    public var target: String

    public init(suiteCount: Int, stepCount: Int, target: String) {
        self.suiteCount = suiteCount
        self.stepCount = stepCount
        self.target = target
    }
}
