import ConformCore

/// What a suite run covered: the selection it was given, how much of the bundled plan it played, which shard it
/// was. With the steps' verdicts it decides whether the run is ``Certifiability/certifiable`` or partial.
public struct RunScope: Sendable, Hashable {
    /// The selection options as given (`--step 'log in from*'`, `--tag smoke`, `--filter login`), in order.
    public var selection: [String]
    /// How many suites the bundled plan holds (the kit's own suite files); 0 when the kit's suites were not found.
    public var bundledSuites: Int
    /// How many of the bundled suites the run played, each byte for byte as bundled.
    public var bundledSuitesRun: Int
    /// The suite files the run played that are not bundled ones (a suite of one's own, or a bundled suite edited).
    public var otherSuites: [String]
    /// Which shard of the plan the run was; ``Shard/whole`` for a whole run or a merge of every shard.
    public var shard: Shard
    /// Whether `--fail-fast` was given (a stop it caused shows as skipped steps).
    public var failFast: Bool

    public init(
        selection: [String] = [], bundledSuites: Int, bundledSuitesRun: Int, otherSuites: [String] = [],
        shard: Shard = .whole, failFast: Bool = false
    ) {
        self.selection = selection
        self.bundledSuites = bundledSuites
        self.bundledSuitesRun = bundledSuitesRun
        self.otherSuites = otherSuites
        self.shard = shard
        self.failFast = failFast
    }

    /// "N of M bundled suites".
    public var coverage: String { "\(bundledSuitesRun) of \(bundledSuites) bundled suites" }
}

/// Whether a run's verdict may stand as a certificate: only a run of the whole bundled plan, finished, against one
/// target, with nothing skipped and nothing that could not run.
public enum Certifiability: Sendable, Hashable {
    case certifiable
    /// The reasons the run is partial, each a short phrase (`2 of 22 bundled suites`, `selection: --step 'x'`).
    case partial([String])

    /// `certifiable` or `partial`, as the JSON report and JUnit properties write it.
    public var word: String {
        switch self {
        case .certifiable: "certifiable"
        case .partial: "partial"
        }
    }

    public var reasons: [String] {
        switch self {
        case .certifiable: []
        case .partial(let reasons): reasons
        }
    }
}

extension RunResult {
    /// Whether the run is certifiable or partial, and why; `nil` for results that are not suite runs or that do
    /// not say what they covered (a report of an older Conform read back).
    public var certifiability: Certifiability? {
        guard command == .run, let scope else { return nil }
        var reasons: [String] = []
        if !scope.selection.isEmpty { reasons.append("selection: " + scope.selection.joined(separator: " ")) }
        if scope.bundledSuites == 0 {
            reasons.append("the kit's bundled suites were not found")
        } else if scope.bundledSuitesRun < scope.bundledSuites {
            reasons.append(scope.coverage)
        }
        if !scope.otherSuites.isEmpty {
            reasons.append(
                Noun("suite").counted(scope.otherSuites.count) + " not bundled: "
                    + scope.otherSuites.prefix(5).joined(separator: ", ") + (scope.otherSuites.count > 5 ? ", …" : ""))
        }
        if scope.shard.count > 1 { reasons.append("shard \(scope.shard) of the plan, not merged") }
        let counts = self.counts
        let skipped = counts[.skipped, default: 0], errors = counts[.error, default: 0]
        if scope.failFast && skipped > 0 { reasons.append("stopped early by --fail-fast") }
        if skipped > 0 { reasons.append(Noun("step").counted(skipped) + " skipped") }
        if errors > 0 { reasons.append(Noun("step").counted(errors) + " could not run") }
        if stepCount == 0 { reasons.append("no step ran") }
        return reasons.isEmpty ? .certifiable : .partial(reasons)
    }
}
