import ConformCore
import ConformReport
import ConformRunner

/// `conform run --list`.
enum RunListing {
    /// Every suite and step that would run, with the steps brought in as prerequisites marked.
    static func render(_ suites: [Suite], selection: RunSelection) -> String {
        var out = ""
        var steps = 0
        for suite in suites {
            out += suite.id + "  " + suite.title
            if !suite.step.isEmpty { out += "  [\(suite.step)]" }
            if !suite.tags.isEmpty { out += "  tags: " + suite.tags.joined(separator: ", ") }
            out += "\n"
            for flow in suite.flows {
                for (index, step) in flow.steps.enumerated() {
                    let needed =
                        selection.isEmpty || selection.chooses(suite, flow: flow.name, step: step)
                        ? "" : "  (prerequisite)"
                    out += "    \(flow.name) › \(index + 1). \(step.name)\(needed)\n"
                    steps += 1
                }
            }
        }
        return out + "\(count(suites.count, "suite")), \(count(steps, "step")) would run\n"
    }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
