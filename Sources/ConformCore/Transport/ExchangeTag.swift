import Foundation

/// Which step of which run sent an exchange: the suite, flow, step (0-based) and attempt (1-based).
///
/// The runner sets ``current`` around each send, so a decorator (the bundle's exchange log) or a transport that
/// answers from a log can tell steps apart without the request carrying anything. Outside a run it is `nil`.
public struct ExchangeTag: Sendable, Hashable, CustomStringConvertible {
    public var suite: String
    public var flow: String
    public var step: Int
    public var attempt: Int

    public init(suite: String, flow: String, step: Int, attempt: Int) {
        self.suite = suite
        self.flow = flow
        self.step = step
        self.attempt = attempt
    }

    /// The tag of the exchange being sent by the current task, if a runner set one.
    @TaskLocal public static var current: ExchangeTag?

    /// `suite › flow › step N, attempt K` (the step 1-based), for messages.
    public var description: String { "\(suite) › \(flow) › step \(step + 1), attempt \(attempt)" }

    /// The tag as one text, `suite/flow/step/attempt` with the step 1-based, as a bundle's exchange log writes it
    /// in an exchange's `flow`; `/` inside a suite id or flow name is written `%2F` (and `%` as `%25`).
    public var key: String {
        func escaped(_ s: String) -> String {
            s.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "/", with: "%2F")
        }
        return "\(escaped(suite))/\(escaped(flow))/\(step + 1)/\(attempt)"
    }

    /// The tag a ``key`` writes, or `nil` when `key` is not one.
    public init?(key: String) {
        let parts = key.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, let step = Int(parts[2]), step >= 1, let attempt = Int(parts[3]), attempt >= 1
        else { return nil }
        func unescaped(_ s: Substring) -> String {
            s.replacingOccurrences(of: "%2F", with: "/").replacingOccurrences(of: "%25", with: "%")
        }
        self.init(suite: unescaped(parts[0]), flow: unescaped(parts[1]), step: step - 1, attempt: attempt)
    }
}
