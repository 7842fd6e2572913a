/// Something the whole run needs said once, with how many steps it concerns: a TLS failure and its fix, a
/// cleartext base URL the run would not follow. Each step it concerns carries a short reference to it (its
/// error's `fields["notice"]` is the notice's text).
public struct RunNotice: Sendable, Hashable {
    /// What happened and how to fix it.
    public var text: String
    /// How many steps it concerns (0 when it concerns the run, not a step).
    public var steps: Int

    public init(_ text: String, steps: Int) {
        self.text = text
        self.steps = steps
    }

    /// The notices of `steps` (each step error's `fields["notice"]`), counted, in the order they first appear,
    /// after `announced` (notices the run made without a step, counted alike).
    public static func gathered(from steps: some Sequence<StepResult>, announced: [String] = []) -> [RunNotice] {
        var order = announced
        var counts: [String: Int] = [:]
        for step in steps {
            guard let text = step.errors.lazy.compactMap({ $0.fields["notice"] }).first else { continue }
            if counts[text] == nil, !order.contains(text) { order.append(text) }
            counts[text, default: 0] += 1
        }
        return order.map { RunNotice($0, steps: counts[$0] ?? 0) }
    }

    /// `warning: TEXT (N steps)`, as the console and the JUnit output show it.
    public var line: String {
        steps == 0 ? "warning: \(text)" : "warning: \(text) (\(steps) step\(steps == 1 ? "" : "s"))"
    }
}
