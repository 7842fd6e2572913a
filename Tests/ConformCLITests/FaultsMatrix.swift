import ConformCore
import ConformReference
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

        var detected: Bool { !failing.isEmpty || !assumptionNotMet.isEmpty }
    }

    /// The run against the reference with no fault.
    var clean: RunResult
    var rows: [Row]

    /// Runs every suite against the clean reference and against each fault, all runs at once, with `variants`
    /// of the reference switched on in every run.
    static func compute(
        _ suites: [Suite], faults: [ReferenceFault] = ReferenceFault.allCases, variants: Set<ReferenceVariant> = []
    ) async -> FaultsMatrix {
        let results = await withTaskGroup(of: (Int, RunResult).self) { group in
            let runs: [Set<ReferenceFault>] = [[]] + faults.map { [$0] }
            for (index, faultSet) in runs.enumerated() {
                group.addTask {
                    (index, await SuitesBundle.runInProcess(suites, faults: faultSet, variants: variants))
                }
            }
            var collected: [(Int, RunResult)] = []
            for await item in group { collected.append(item) }
            return collected.sorted { $0.0 < $1.0 }.map(\.1)
        }
        let rows = zip(faults, results.dropFirst()).map { fault, result in
            Row(
                fault: fault,
                failing: result.suites.filter { $0.verdict == .fail || $0.verdict == .error }.map(\.suite.id),
                assumptionNotMet: result.suites.filter { $0.verdict == .assumptionNotMet }.map(\.suite.id))
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
