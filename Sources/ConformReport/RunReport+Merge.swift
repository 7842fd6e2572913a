import ConformCore

extension RunReport {
    /// The run the shard reports add up to: suites back in the order of the whole plan, the longest shard's
    /// duration (shards run side by side), the flaky steps of a repeated run in plan order; the same verdict,
    /// counts and pages as one unsharded run. Shards of a `--repeat --fail-fast` run may stop after different
    /// repetitions: the merged run shows the most any shard played.
    ///
    /// Refuses reports that do not make exactly one whole: different shard counts, plans or targets, a shard
    /// missing or given twice, a suite position held twice or by none.
    public static func merge(_ reports: [RunReport]) throws(RunReportError) -> RunReport {
        guard let first = reports.first else {
            throw RunReportError("no reports to merge", help: "pass the JSON report of every shard")
        }
        let count = first.placement.shard.count
        var byIndex: [Int: RunReport] = [:]
        for report in reports {
            let p = report.placement
            guard p.shard.count == count else {
                throw RunReportError(
                    "\(report.source) is shard \(p.shard) but \(first.source) is shard \(first.placement.shard)",
                    help: "merge the reports of one sharded run, all with the same N")
            }
            guard p.planSuites == first.placement.planSuites else {
                throw RunReportError(
                    "\(report.source) comes from a plan of \(p.planSuites) suites, \(first.source) from one of \(first.placement.planSuites)",
                    help: "run every shard on the same suites")
            }
            guard report.result.command == first.result.command else {
                throw RunReportError(
                    "\(report.source) is a report of \(report.result.command.rawValue), \(first.source) of \(first.result.command.rawValue)",
                    help: "merge the reports of the shards of one command")
            }
            guard report.result.target == first.result.target else {
                throw RunReportError(
                    "\(report.source) ran against \(report.result.target), \(first.source) against \(first.result.target)",
                    help: "run every shard against the same target")
            }
            if let other = byIndex[p.shard.index] {
                throw RunReportError(
                    "shard \(p.shard) is given twice: \(other.source) and \(report.source)",
                    help: "pass each shard's report once")
            }
            byIndex[p.shard.index] = report
        }
        let missing = (1...count).filter { byIndex[$0] == nil }
        guard missing.isEmpty else {
            let list = missing.prefix(10).map { "\($0)/\(count)" }.joined(separator: ", ")
            throw RunReportError(
                "the reports lack shard\(missing.count == 1 ? "" : "s") \(list)\(missing.count > 10 ? ", …" : "")",
                help: "a merge needs every shard; rerun the missing ones or pass their reports")
        }
        let planSuites = first.placement.planSuites
        let held = reports.reduce(0) { $0 + $1.result.suites.count }
        guard held == planSuites else {
            throw RunReportError(
                "the reports hold \(held) suites but the plan has \(planSuites)",
                help: "merge the reports of one sharded run, every shard included")
        }
        var slots = [SuiteResult?](repeating: nil, count: planSuites)
        for index in 1...count {
            let report = byIndex[index]!
            guard report.placement.positions.count == report.result.suites.count else {
                throw RunReportError(
                    "\(report.source) places \(report.placement.positions.count) suites but holds \(report.result.suites.count)",
                    help: "pass the unmodified files written by 'conform run --report json:FILE'")
            }
            for (position, suite) in zip(report.placement.positions, report.result.suites) {
                guard slots.indices.contains(position), slots[position] == nil else {
                    throw RunReportError(
                        "\(report.source): suite \(suite.group.id) claims plan position \(position), which is out of range or taken",
                        help: "merge the reports of one sharded run")
                }
                slots[position] = suite
            }
        }
        // Every position is in range and taken once, and there are as many suites as positions: every slot is full.
        let suites = slots.compactMap { $0 }
        let duration = byIndex.values.map(\.result.duration).max() ?? 0
        var result = RunResult(
            command: first.result.command, suites: suites, duration: duration, target: first.result.target)
        result.repetitions = reports.map(\.result.repetitions).max() ?? 1
        result.contactedOrigins = Set(reports.flatMap(\.result.contactedOrigins)).sorted()
        // Suite ids are unique in a plan: each flaky step goes where its suite went, in the order its shard gave.
        let flaky = Dictionary(grouping: reports.flatMap(\.result.flaky), by: \.suiteID)
        result.flaky = suites.flatMap { flaky[$0.group.id] ?? [] }
        result.scope = mergedScope(reports.map(\.result.scope), planFiles: suites.map(\.group.file))
        result.provenance = mergedProvenance(reports.compactMap(\.result.provenance))
        return RunReport(
            result: result, placement: .whole(suiteCount: planSuites),
            source: reports.map(\.source).joined(separator: " + "))
    }

    /// The scope of every shard together: the whole plan (shard 1/1), the bundled suites each shard ran added up,
    /// the suites that are not bundled in plan order (`planFiles`); `nil` unless every shard says what it covered.
    static func mergedScope(_ scopes: [RunScope?], planFiles: [String]) -> RunScope? {
        let known = scopes.compactMap { $0 }
        guard let first = known.first, known.count == scopes.count else { return nil }
        var selection: [String] = []
        for scope in known { for item in scope.selection where !selection.contains(item) { selection.append(item) } }
        return RunScope(
            selection: selection, bundledSuites: first.bundledSuites,
            bundledSuitesRun: known.reduce(0) { $0 + $1.bundledSuitesRun },
            otherSuites: planFiles.filter(Set(known.flatMap(\.otherSuites)).contains), shard: .whole,
            failFast: known.contains { $0.failFast })
    }

    /// The provenance of the shards together: the first shard's, from the earliest start to the latest end, with
    /// every shard's suite files in plan order of first appearance.
    static func mergedProvenance(_ all: [RunProvenance]) -> RunProvenance? {
        guard var merged = all.first else { return nil }
        merged.startedAt = all.map(\.startedAt).min() ?? merged.startedAt
        merged.finishedAt = all.compactMap(\.finishedAt).max()
        return merged
    }
}
