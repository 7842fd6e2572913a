import ConformCore
import ConformTraffic
import Foundation

/// What happened to one replayed exchange.
public struct ReplayOutcome: Sendable, Hashable, CustomStringConvertible {
    public var seq: Int
    public var flow: String
    /// The request as sent, after remapping.
    public var request: HTTPRequest
    /// The request as it was recorded.
    public var recorded: HTTPRequest? = nil
    /// The recorded response with recorded ids replaced by live ones.
    public var expected: HTTPResponse
    /// The live response, or `nil` when the transport failed.
    public var actual: HTTPResponse?
    public var differences: [Mismatch]
    /// Why no response came, when the transport failed.
    public var transportError: String?
    /// What the recording lacks to judge this exchange (a body a tool left out, a request that failed when it
    /// was recorded), or why the live answer says nothing of the implementation (a gateway's page): it is not
    /// compared, and the replay cannot say the behaviour is the same.
    public var cannotJudge: String?
    /// How many times `--retry` sent the exchange again (``RetryTransport``).
    public var retries = 0
    /// What the whole replay needs told once about why no answer came (``TransportError/notice``: a TLS failure's
    /// cause and fix), counted over the exchanges it concerns.
    public var notice: String?

    public var passed: Bool { transportError == nil && differences.isEmpty && cannotJudge == nil }

    public var description: String {
        let head = "exchange \(seq) (flow \(flow)): \(request.method) \(request.target)"
        if let cannotJudge { return "\(head): cannot judge: \(cannotJudge)" }
        if let transportError { return "\(head): error: \(transportError)" }
        if differences.isEmpty { return "\(head): ok" }
        return ([head + ": \(differences.count) difference(s)"] + differences.map { "  \($0)" }).joined(separator: "\n")
    }
}

/// Totals of one replay, with the first mismatches kept for the report.
public struct ReplaySummary: Sendable, Hashable {
    public var total = 0
    public var passed = 0
    public var mismatched = 0
    public var failed = 0
    /// Exchanges the recording cannot judge (see ``ReplayOutcome/cannotJudge``).
    public var unjudged = 0
    /// How many times `--retry` sent an exchange again, over the whole replay.
    public var retries = 0
    /// The first ``ReplayOptions/maxKeptMismatches`` exchanges that did not pass, in completion order.
    public var mismatches: [ReplayOutcome] = []
    /// Recorded ids mapped to the ids the target minted.
    public var identifiers = IdentifierMap()
    /// Latencies, the rate reached and, with a schedule, how far the replay fell behind it.
    public var timing = ReplayTiming()

    /// Lines of the recording skipped because they are not exchanges or app events: never sent, never judged.
    public var unreadable = 0
    /// Exchanges whose differences look like state an earlier replay left on the target (see ``LeftoverState``).
    public var leftoverState = 0
    /// Exchanges not judged because their request carries a redacted token and no key re-signs it.
    public var redactedTokens = 0
    /// Exchanges not judged because the recording shows their redacted token refused for a reason the redaction
    /// took with it (its signature): re-signing it would send a token the recording never sent.
    public var refusedTokens = 0

    public var allPassed: Bool { mismatched == 0 && failed == 0 && unjudged == 0 && unreadable == 0 }
}
