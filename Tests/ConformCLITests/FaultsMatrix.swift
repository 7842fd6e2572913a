import ConformCore
import ConformReference
import ConformReport
import ConformRunner
import Foundation

/// Which bundled suites notice each fault of the reference implementation.
struct FaultsMatrix: Sendable {
    /// One fault and the suites it makes fail or leaves with an assumption not met.
    struct Row: Sendable, Hashable {
        var fault: ReferenceFault
        /// Suites with at least one failed step (a `must` or `should` check, or a step that could not run).
        var failing: [String]
        /// Suites whose only complaints are assumed checks.
        var assumptionNotMet: [String]
        /// Every assumed fact the run found broken (``FaultsMatrix/assumedFindings(_:)``).
        var assumed: Set<String> = []

        var detected: Bool { !failing.isEmpty || !assumptionNotMet.isEmpty }
    }

    /// The run against the reference with no fault.
    var clean: RunResult
    var rows: [Row]

    /// The assumed facts a run found broken, one line each: the step, the decision and the mismatch's path (with
    /// what was expected of a status, which is literal; a body's expected value may hold rendered unique ids).
    static func assumedFindings(_ result: RunResult) -> Set<String> {
        var out: Set<String> = []
        for step in result.steps {
            for failure in step.failures where failure.severity == .assumed {
                for m in failure.mismatches {
                    let what = m.path == "status" ? "status \(m.expected)" : m.path
                    out.insert("\(step.suiteID) › \(step.flow) › \(step.index + 1) \(failure.decision ?? ""): \(what)")
                }
            }
        }
        return out
    }

    /// Whether `row`'s fault is caught beyond what the run without it already showed: a suite fails, or an assumed
    /// fact holds without the fault and is broken with it.
    func caughtBeyondClean(_ row: Row) -> Bool {
        !row.failing.isEmpty || !row.assumed.isSubset(of: Self.assumedFindings(clean))
    }

    /// How many runs go at once. The runs are in process and mostly compute: more would not finish sooner on a
    /// few cores, but would queue thousands of jobs ahead of every other test running in parallel.
    static let runsAtOnce = 6

    /// Runs every suite against the clean reference and against each fault, ``runsAtOnce`` runs at a time, with
    /// `variants` of the reference switched on in every run; `jittered` pauses at random before each exchange.
    static func compute(
        _ suites: [Suite], faults: [ReferenceFault] = ReferenceFault.allCases, variants: Set<ReferenceVariant> = [],
        jittered: Bool = false
    ) async -> FaultsMatrix {
        let runs: [Set<ReferenceFault>] = [[]] + faults.map { [$0] }
        let results = await boundedConcurrently(runs, limit: runsAtOnce) { faultSet in
            await SuitesBundle.runInProcess(suites, faults: faultSet, variants: variants, jittered: jittered)
        }
        let rows = zip(faults, results.dropFirst()).map { fault, result in
            Row(
                fault: fault,
                failing: result.suites.filter { $0.verdict == .fail || $0.verdict == .error }.map(\.group.id),
                assumptionNotMet: result.suites.filter { $0.verdict == .assumptionNotMet }.map(\.group.id),
                assumed: assumedFindings(result))
        }
        return FaultsMatrix(clean: results[0], rows: rows)
    }

    /// The Markdown table written into `docs/suites.md`, with a one-line total.
    func markdown() -> String {
        var out = "| fault | behaviour it flips | suites that fail | assumption not met only |\n"
        out += "|---|---|---|---|\n"
        for row in rows {
            let failing = row.failing.isEmpty ? "—" : row.failing.map { "`\($0)`" }.joined(separator: ", ")
            let assumed =
                row.assumptionNotMet.isEmpty ? "—" : row.assumptionNotMet.map { "`\($0)`" }.joined(separator: ", ")
            let summary = (row.fault.summary ?? "").replacingOccurrences(of: "|", with: "\\|")
                .replacingOccurrences(of: "<", with: "&lt;")
            out += "| `\(row.fault.rawValue)` | \(summary) | \(failing) | \(assumed) |\n"
        }
        let failed = rows.filter { !$0.failing.isEmpty }.count
        let detected = rows.filter(\.detected).count
        out += "\n\(detected) of \(rows.count) faults are detected; \(failed) make at least one suite fail"
        let onlyAssumed = detected - failed
        out +=
            onlyAssumed == 0
            ? ".\n" : ", \(onlyAssumed) \(onlyAssumed == 1 ? "is" : "are") flagged only as *assumption not met*.\n"
        return out
    }
}

/// `body` applied to every item with at most `limit` calls under way at once; the results in the items' order.
func boundedConcurrently<Item: Sendable, Output: Sendable>(
    _ items: [Item], limit: Int, _ body: @escaping @Sendable (Item) async -> Output
) async -> [Output] {
    await withTaskGroup(of: (Int, Output).self) { group in
        var collected: [(Int, Output)] = []
        var next = 0
        for _ in 0..<min(limit, items.count) {
            let index = next
            group.addTask { (index, await body(items[index])) }
            next += 1
        }
        for await item in group {
            collected.append(item)
            if next < items.count {
                let index = next
                group.addTask { (index, await body(items[index])) }
                next += 1
            }
        }
        return collected.sorted { $0.0 < $1.0 }.map(\.1)
    }
}
