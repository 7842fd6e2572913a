import ConformCore
import Foundation

/// The page's verdict tables: suites, flows or rules by flow step, with their legend.
extension HTMLReporter {
    func matrix(_ page: Page) -> String {
        let result = page.result
        let order = result.reportedVerdicts
        let suites = result.suites.contains { $0.group.kind == .suite }
        // A suite belongs to a flow step, or says it has none; a device flow or a file has none to show.
        let steps = [.run, .mock].contains(result.command) || result.suites.contains { !$0.group.step.isEmpty }
        let groupNoun = result.groupNoun
        let group = groupNoun.one.prefix(1).uppercased() + groupNoun.one.dropFirst()
        var out = "<section class=\"matrix\" aria-labelledby=\"matrix-title\">\n"
        out += "<h2 id=\"matrix-title\">\(Escaping.html(Self.matrixTitle(result)))</h2>\n"
        var head = "<thead><tr>"
        if steps { head += "<th scope=\"col\">Flow step</th>" }
        head += "<th scope=\"col\">\(Escaping.html(group))</th>"
        if suites { head += "<th scope=\"col\">Profile</th><th scope=\"col\">Version</th>" }
        for verdict in order {
            head +=
                "<th scope=\"col\" class=\"n\"><span class=\"symbol\" aria-hidden=\"true\">\(Self.symbol(verdict))</span> \(Self.columnLabel(verdict, command))</th>"
        }
        head += "<th scope=\"col\">Verdict</th></tr></thead>\n"
        let shown = page.entries.filter { !page.folds($0) }
        out += tableIntro(result) + "<div class=\"table-scroll\">\n<table id=\"verdict-matrix\">\n"
        out += "<caption class=\"visually-hidden\">\(Escaping.html(Self.matrixCaption(result)))</caption>\n" + head
        out += matrixRows(page.grouped(shown), order: order, steps: steps, suites: suites)
        let columns = (steps ? 1 : 0) + 1 + (suites ? 2 : 0)
        if shown.isEmpty {
            out +=
                "<tbody><tr><td colspan=\"\(columns + order.count + 1)\" class=\"muted\">No \(Escaping.html(groupNoun.one)) differs.</td></tr></tbody>\n"
        }
        let counts = result.counts
        out += "<tfoot><tr><th scope=\"row\" colspan=\"\(columns)\">All \(Escaping.html(groupNoun.many))</th>"
        for verdict in order { out += "<td class=\"n\">\(counts[verdict, default: 0])</td>" }
        out += "<td>\(overallBadge(result))</td></tr></tfoot>\n"
        out += "</table>\n</div>\n"
        let folded = page.entries.filter(page.folds)
        if !folded.isEmpty {
            out += "<details class=\"same-groups\">\n<summary>\(Escaping.html(page.sameSummary))</summary>\n"
            out += "<div class=\"table-scroll\">\n<table class=\"same-matrix\">\n" + head
            out += matrixRows(page.grouped(folded), order: order, steps: steps, suites: suites)
            out += "</table>\n</div>\n</details>\n"
        }
        out += legend(order)
        out += "</section>\n"
        return out
    }

    /// The rows of the table for `groups`, one per entry.
    func matrixRows(
        _ groups: [(step: String, entries: [Entry])], order: [Verdict], steps showSteps: Bool, suites: Bool
    ) -> String {
        var out = ""
        for group in groups {
            out += "<tbody>\n"
            for (i, entry) in group.entries.enumerated() {
                let suite = entry.result.group
                out +=
                    "<tr data-suite=\"\(Escaping.html(suite.id))\" data-verdict=\"\(Escaping.html(entry.result.verdict.rawValue))\">"
                if showSteps && i == 0 {
                    let label = group.step.isEmpty ? "(no flow step)" : group.step
                    out +=
                        "<th scope=\"rowgroup\" rowspan=\"\(group.entries.count)\" class=\"flow-step\">\(Escaping.html(label))</th>"
                }
                out +=
                    "<th scope=\"row\" class=\"suite-cell\"><a href=\"#\(entry.anchor)\">\(Escaping.html(suite.id))</a><span class=\"suite-title\">\(Escaping.html(suite.title))</span></th>"
                if suites {
                    out += "<td><code>\(Escaping.html(suite.profile))</code></td>"
                    out += "<td>\(version(suite.contentHash, short: true))</td>"
                }
                for verdict in order {
                    // Counted in place: a suite of 100,000 steps is not copied once per verdict.
                    let steps = entry.result.steps
                    if let first = steps.firstIndex(where: { $0.verdict == verdict }) {
                        let count = steps[first...].reduce(0) { $0 + ($1.verdict == verdict ? 1 : 0) }
                        out +=
                            "<td class=\"n \(Self.cssClass(verdict))\"><a href=\"#\(entry.anchor)-step\(first - steps.startIndex + 1)\" aria-label=\"\(count) \(Self.countLabel(verdict, command)) in \(Escaping.html(suite.id))\">\(count)</a></td>"
                    } else {
                        out += "<td class=\"n zero\">0</td>"
                    }
                }
                out += "<td>\(badge(entry.result.verdict, link: "#\(entry.anchor)"))</td>"
                out += "</tr>\n"
            }
            out += "</tbody>\n"
        }
        return out
    }

    /// A client check's table: one row per rule (and trace), with its violations and verdict.
    func ruleMatrix(_ page: Page) -> String {
        let result = page.result
        let traces = Set(result.eachStep.map(\.flow)).count
        var out = "<section class=\"matrix\" aria-labelledby=\"matrix-title\">\n"
        out += "<h2 id=\"matrix-title\">\(Escaping.html(Self.matrixTitle(result)))</h2>\n"
        out += tableIntro(result) + "<div class=\"table-scroll\">\n<table id=\"verdict-matrix\" class=\"rules\">\n"
        out += "<caption class=\"visually-hidden\">\(Escaping.html(Self.matrixCaption(result)))</caption>\n"
        out +=
            "<thead><tr><th scope=\"col\">Flow step</th><th scope=\"col\">Rule</th><th scope=\"col\" class=\"n\">Violations</th><th scope=\"col\">Verdict</th></tr></thead>\n"
        var total = 0
        for group in page.groups {
            let rows = group.entries.flatMap { entry in entry.result.steps.indices.map { (entry, $0) } }
            guard !rows.isEmpty else { continue }
            out += "<tbody>\n"
            for (i, (entry, index)) in rows.enumerated() {
                let step = entry.result.steps[index]
                let anchor = "#\(entry.anchor)-step\(index + 1)"
                let parts = step.name.split(separator: ":", maxSplits: 1)
                let rule = step.check == .flowRule && parts.count == 2 ? String(parts[0]) : step.name
                var summary =
                    step.check == .flowRule && parts.count == 2
                    ? parts[1].trimmingCharacters(in: .whitespaces) : ""
                if traces > 1 { summary += (summary.isEmpty ? "" : " ") + "(in \(step.flow))" }
                out +=
                    "<tr data-rule=\"\(Escaping.html(rule))\" data-verdict=\"\(Escaping.html(step.verdict.rawValue))\">"
                if i == 0 {
                    let label = group.step.isEmpty ? "(no flow step)" : group.step
                    out +=
                        "<th scope=\"rowgroup\" rowspan=\"\(rows.count)\" class=\"flow-step\">\(Escaping.html(label))</th>"
                }
                out +=
                    "<th scope=\"row\" class=\"suite-cell\"><a href=\"\(anchor)\"><code>\(Escaping.html(rule))</code></a>"
                if !summary.isEmpty { out += "<span class=\"suite-title\">\(Escaping.html(summary))</span>" }
                out += "</th>"
                let n = step.verdict == .fail ? max(1, step.failures.reduce(0) { $0 + $1.count }) : 0
                total += n
                out +=
                    n > 0
                    ? "<td class=\"n v-fail\"><a href=\"\(anchor)\">\(n)</a></td>" : "<td class=\"n zero\">0</td>"
                out += "<td>\(badge(step.verdict, link: anchor))</td></tr>\n"
            }
            out += "</tbody>\n"
        }
        out += "<tfoot><tr><th scope=\"row\" colspan=\"2\">All rules</th><td class=\"n\">\(total)</td>"
        out += "<td>\(overallBadge(result))</td></tr></tfoot>\n"
        out += "</table>\n</div>\n"
        out += legend(result.reportedVerdicts)
        out += "</section>\n"
        return out
    }

    /// What the table shows, above it: its caption for sighted readers, outside the box that scrolls on a narrow
    /// screen (a caption is as wide as its table).
    func tableIntro(_ result: RunResult) -> String {
        "<p class=\"table-intro\" aria-hidden=\"true\">\(Escaping.html(Self.matrixCaption(result)))</p>\n"
    }

    /// What each verdict shown means, in the command's words.
    func legend(_ order: [Verdict]) -> String {
        "<p class=\"legend\">"
            + order.map { "\(badge($0)) \(Escaping.html(Self.meaning($0, command)))" }.joined(separator: " ")
            + "</p>\n"
    }
}
