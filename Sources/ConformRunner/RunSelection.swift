import ConformCore
import Foundation

/// Which suites and steps a run plays (`conform run --tag --filter --step`), with the steps they cannot run without.
///
/// A step is chosen when its suite has one of `tags` (or no tags are asked for), a `filters` pattern matches its
/// suite's id or its `SUITE/FLOW/STEP` path (or no filter is given), and a `steps` pattern matches its name (or none
/// is given). A chosen step brings its prerequisites: the steps before it in its flow (they build the state and
/// capture the values it uses), and for every `wait`, the flows that emit the event it waits for, up to the first
/// step emitting it, with their own prerequisites. Steps after the last one needed in a flow, flows with no step
/// needed and suites with none are left out; step numbers stay those of the file.
public struct RunSelection: Sendable, Hashable {
    public var tags: [String]
    public var filters: [String]
    public var steps: [String]

    public init(tags: [String] = [], filters: [String] = [], steps: [String] = []) {
        self.tags = tags
        self.filters = filters
        self.steps = steps
    }

    /// Whether the selection keeps everything.
    public var isEmpty: Bool { tags.isEmpty && filters.isEmpty && steps.isEmpty }

    /// Whether `step` (number `index` in `flow`) of `suite` is chosen by the patterns themselves, not as a prerequisite.
    public func chooses(_ suite: Suite, flow: String, step: Step) -> Bool {
        guard tags.isEmpty || suite.tags.contains(where: tags.contains) else { return false }
        let path = "\(suite.id)/\(flow)/\(step.name)"
        let filtered = filters.isEmpty || filters.contains { Glob.matches($0, suite.id) || Glob.matches($0, path) }
        return filtered && (steps.isEmpty || steps.contains { Glob.matches($0, step.name) })
    }

    /// The suites trimmed to the chosen steps and their prerequisites, in their order; suites left empty are dropped.
    public func apply(_ suites: [Suite]) -> [Suite] {
        guard !isEmpty else { return suites }
        return suites.compactMap(trim)
    }

    func trim(_ suite: Suite) -> Suite? {
        // needed[f]: how many leading steps of flow f must run.
        var needed = suite.flows.map { flow in
            (flow.steps.lastIndex { chooses(suite, flow: flow.name, step: $0) }).map { $0 + 1 } ?? 0
        }
        var changed = true
        while changed {
            changed = false
            for (f, flow) in suite.flows.enumerated() {
                for step in flow.steps.prefix(needed[f]) {
                    guard case .wait(let wait) = step.action else { continue }
                    for (g, source) in suite.flows.enumerated() where g != f {
                        guard wait.flow == nil || wait.flow == source.name,
                            let emitter = source.steps.firstIndex(where: { $0.emits == wait.event }),
                            needed[g] < emitter + 1
                        else { continue }
                        needed[g] = emitter + 1
                        changed = true
                    }
                }
            }
        }
        var out = suite
        out.flows = zip(suite.flows, needed).compactMap { flow, count in
            count == 0 ? nil : Flow(name: flow.name, steps: Array(flow.steps.prefix(count)))
        }
        return out.flows.isEmpty ? nil : out
    }
}

extension Step {
    /// The event this step emits when it passes, if any.
    var emits: String? {
        if case .exchange(let exchange) = action { return exchange.emits }
        return nil
    }
}

/// Shell-style patterns where `*` stands for any run of characters (none included); everything else is literal.
public enum Glob {
    public static func matches(_ pattern: String, _ text: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 1 else { return pattern == text }
        guard text.hasPrefix(parts[0]) else { return false }
        var rest = text.dropFirst(parts[0].count)
        for part in parts.dropFirst().dropLast() where !part.isEmpty {
            guard let found = rest.range(of: part) else { return false }
            rest = rest[found.upperBound...]
        }
        let last = parts[parts.count - 1]
        return rest.count >= last.count && rest.hasSuffix(last)
    }
}
