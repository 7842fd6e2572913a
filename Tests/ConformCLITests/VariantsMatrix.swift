import ConformCore
import ConformReference
import ConformReport
import ConformRunner
import Foundation

/// The bundled suites against conforming variants of the reference: each must conform under every variant, and
/// the fault matrix must hold under each of them exactly as without one.
struct VariantsMatrix: Sendable {
    /// One configuration: a single variant, or every variant at once.
    struct Row: Sendable {
        var variants: [ReferenceVariant]
        /// The run with no fault.
        var clean: RunResult
        /// The fault matrix under these variants.
        var faults: FaultsMatrix

        var name: String { variants.count == 1 ? "`\(variants[0].rawValue)`" : "all \(variants.count) at once" }
    }

    var base: FaultsMatrix
    var rows: [Row]

    /// Every single variant, then all of them together.
    static let configurations: [[ReferenceVariant]] =
        ReferenceVariant.allCases.map { [$0] } + [ReferenceVariant.allCases]

    /// Runs the base fault matrix and, one configuration after the other, the fault matrix under each variant set
    /// (the runs of one configuration go at once).
    static func compute(_ suites: [Suite], base: FaultsMatrix) async -> VariantsMatrix {
        var rows: [Row] = []
        for variants in configurations {
            let matrix = await FaultsMatrix.compute(suites, variants: Set(variants))
            rows.append(Row(variants: variants, clean: matrix.clean, faults: matrix))
        }
        return VariantsMatrix(base: base, rows: rows)
    }

    /// Faults whose failing suites differ from the base matrix under this row's variants, one line each.
    ///
    /// A fault caught as before still fails every suite it failed without the variant; failing more suites is
    /// allowed (a faulty implementation may break more under a variant's timing), failing fewer is not.
    func differences(_ row: Row) -> [String] {
        zip(base.rows, row.faults.rows).compactMap { before, now in
            guard !before.failing.allSatisfy(now.failing.contains) || !now.detected else { return nil }
            return "\(now.fault.rawValue): fails \(now.failing) instead of \(before.failing)"
                + (now.detected ? "" : " (not detected at all)")
        }
    }

    /// The Markdown table written into `docs/suites.md`.
    func markdown() -> String {
        var out =
            "| variants | behaviour | bundled suites | assumption not met (no fault) | faults caught as without it |\n"
        out += "|---|---|---|---|---|\n"
        for row in rows {
            let behaviour =
                row.variants.count == 1
                ? (row.variants[0].summary ?? "").replacingOccurrences(of: "|", with: "\\|") : "every variant above"
            let verdict = row.clean.exitCode == 0 ? "conform" : "DO NOT CONFORM"
            let unmet = row.clean.suites.filter { $0.verdict == .assumptionNotMet }.map { "`\($0.group.id)`" }
            let same = row.faults.rows.count - differences(row).count
            out += "| \(row.name) | \(behaviour) | \(verdict) | \(unmet.isEmpty ? "—" : unmet.joined(separator: ", ")) "
            out += "| \(same) of \(row.faults.rows.count) |\n"
        }
        return out
    }
}
