import ConformCore
import ConformReport
import ConformTraffic

/// Two runs of the same suites, one against each implementation (`conform diff` of suites), compared step by step:
/// each step of A passes when B did alike and fails with where B differs, A being what was expected.
///
/// Each run generates its own values (`uuid()`, minted ids): B's are learnt and read as A's before anything is
/// compared. Steps of concurrent flows are listed flow by flow, so everything is learnt before anything is compared.
public struct SuiteDifferential: Sendable {
    public var noise: NoiseRules
    /// The identifiers the protocol mints, learnt from both sides' bodies.
    public var minted: ProtocolProfile.MintedIdentifiers

    public init(noise: NoiseRules, minted: ProtocolProfile.MintedIdentifiers) {
        self.noise = noise
        self.minted = minted
    }

    /// The steps of A's run, each judged against the same step of B's, with its suite's group.
    public func compare(_ ra: RunResult, _ rb: RunResult) -> [(StepResult, ResultGroup)] {
        var bToA = IdentifierMap()
        for (sa, sb) in zip(ra.steps, rb.steps) {
            if let x = sa.request, let y = sb.request { Self.learnTokens(a: x, b: y, into: &bToA) }
            if let x = sa.response.map({ ContentDecoding.decoded($0) }),
                let y = sb.response.map({ ContentDecoding.decoded($0) }),
                let jx = JSONValue.parsedBody(x.body), let jy = JSONValue.parsedBody(y.body)
            {
                bToA.learn(recorded: jy, live: jx, minted: minted)
            }
        }
        let pairs = zip(ra.suites, rb.suites).flatMap { p in zip(p.0.steps, p.1.steps).map { (p.0.group, $0) } }
        return pairs.map { group, steps in (judge(steps.0, steps.1, bToA: bToA), group) }
    }

    /// A's step judged against B's: passed, failed with the differences, or not judged when neither side answered
    /// or a gateway answered for one.
    func judge(_ sa: StepResult, _ sb: StepResult, bToA: IdentifierMap) -> StepResult {
        let mismatches = differences(sa, sb, bToA: bToA)
        var step = sa
        step.check = .suiteDifference
        step.retries = sa.retries + sb.retries
        step.verdict = mismatches.isEmpty ? .pass : .fail
        step.failures = mismatches.isEmpty ? [] : [CheckFailure(severity: .must, mismatches: mismatches)]
        step.error = nil
        if mismatches.isEmpty, sa.response == nil, sb.response == nil, !sa.verdict.judged || sa.verdict == .error {
            // Neither side answered (both could not run, or both were skipped): alike, but nothing was compared.
            let why = sa.error ?? "step \(sa.verdict.rawValue) on both sides"
            step.verdict = .skipped
            step.errors = [
                StepError(.cannotJudge, "cannot judge: neither side answered (\(why))", fields: ["cause": why])
            ]
        }
        if mismatches.isEmpty { (step.request, step.response) = (nil, nil) }
        if let gateway = Self.gatewayUnavailable(sa, sb) {
            // A gateway answered for one side: nothing was learnt about it, so nothing can be compared.
            (step.verdict, step.failures) = (.skipped, [])
            step.errors = [StepError(.cannotJudge, "cannot judge: \(gateway)", fields: ["cause": gateway])]
        }
        return step
    }

    /// Which side a gateway answered for (a 502/503/504 page that is not JSON), and what it said; `nil` when both
    /// sides' answers are the implementations' own.
    static func gatewayUnavailable(_ sa: StepResult, _ sb: StepResult) -> String? {
        for (side, step) in [("A", sa), ("B", sb)] {
            if let error = step.errors.first(where: { $0.kind == .gatewayUnavailable }) {
                return "\(side): \(error.message)"
            }
        }
        return nil
    }

    /// Where B's step differs from A's: the verdict, whether a response came, and the responses (B's generated
    /// values read as A's), with A as what was expected.
    func differences(_ sa: StepResult, _ sb: StepResult, bToA: IdentifierMap) -> [Mismatch] {
        var out: [Mismatch] = []
        if sa.verdict != sb.verdict {
            out.append(
                Mismatch(path: "verdict", expected: "A \(sa.verdict.rawValue)", actual: "B \(sb.verdict.rawValue)"))
        }
        if let x = sa.response.map({ ContentDecoding.decoded($0) }),
            let y = sb.response.map({ ContentDecoding.decoded($0) })
        {
            // Each side names its own origin (M12's baseUrl, New-Base-URL, Location): B's is read as A's.
            var b = bToA.apply(y)
            if let from = sb.request.map({ URLParts($0.url).origin }),
                let to = sa.request.map({ URLParts($0.url).origin }),
                !from.isEmpty, !to.isEmpty, from != to
            {
                b = Replayer.mapOrigin(b, from: from, to: to)
            }
            out += ResponseDiff.compare(expected: x, actual: b, noise: noise)
        } else if (sa.response == nil) != (sb.response == nil) {
            out.append(
                Mismatch(
                    path: "response", expected: "A \(sa.response == nil ? "got no response" : "got a response")",
                    actual: "B \(sb.response == nil ? "got no response" : "got a response")"))
        }
        return out
    }

    /// Maps each token of B's request to A's where the two requests differ only in generated values.
    static func learnTokens(a: HTTPRequest, b: HTTPRequest, into map: inout IdentifierMap) {
        func text(_ r: HTTPRequest) -> String {
            ([r.method.rawValue, URLParts(r.url).target] + r.headerFields.fields.map { "\($0.name): \($0.value)" }
                + [String(decoding: r.body, as: UTF8.self)]).joined(separator: "\n")
        }
        let ta = tokens(text(a))
        let tb = tokens(text(b))
        guard ta.count == tb.count else { return }
        for (x, y) in zip(ta, tb) where x != y && map.mapping[String(y)] == nil { map.set(String(y), String(x)) }
    }

    /// Maximal runs of `[A-Za-z0-9-]`, the units ids are replaced in.
    static func tokens(_ text: String) -> [Substring] {
        text.split(whereSeparator: { c in !(c.isASCII && (c.isLetter || c.isNumber || c == "-")) })
    }
}
