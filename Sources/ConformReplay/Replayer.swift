import ConformCore
import ConformTraffic
import Foundation
import Synchronization

/// Re-sends recorded requests, remapping minted ids, and diffs each live response against the recorded one, or,
/// in a differential, against a second live target's answer to the same request.
public struct Replayer: Sendable {
    public let transport: any Transport
    public let noise: NoiseRules
    public let options: ReplayOptions
    /// The side whose answers are expected when it is a second live target (`conform diff`: A, with ``transport``
    /// as B); `nil` expects the recorded answers. Either way one scheduler, pace, concurrency and the same
    /// cannot-judge rules apply.
    public let expectedSide: (any Transport)?
    /// The transport of each upstream the options name an origin for (and of `*`), and of the others: made once,
    /// not per exchange.
    private let clients: (byUpstream: [String: any Transport], other: any Transport)

    public init(
        transport: any Transport, noise: NoiseRules = .default, options: ReplayOptions = ReplayOptions(),
        expectedSide: (any Transport)? = nil
    ) {
        self.transport = transport
        self.noise = noise
        self.options = options
        self.expectedSide = expectedSide
        let bounded: any Transport =
            options.exchangeTimeout.map { DeadlineTransport(inner: transport, deadline: $0) } ?? transport
        let rebased = options.origins.mapValues { origin -> any Transport in
            RebasedTransport(base: origin, hostHeader: options.hostHeader, inner: bounded)
        }
        clients = (rebased, rebased["*"] ?? bounded)
    }

    /// Replays exchanges held in memory.
    public func replay(
        _ exchanges: [RecordedExchange], onOutcome: @escaping @Sendable (ReplayOutcome) -> Void = { _ in }
    ) async throws -> ReplaySummary {
        try await replay(sequence: AsyncArraySequence(exchanges), onOutcome: onOutcome)
    }

    /// Replays a trace (any format), streaming it record by record; a record that cannot be read is skipped, handed
    /// to `onWarning` with the trace's other warnings, and counted in ``ReplaySummary/unreadable``.
    public func replay(
        _ trace: Trace, onWarning: (@Sendable (TraceWarning) -> Void)? = nil,
        onOutcome: @escaping @Sendable (ReplayOutcome) -> Void = { _ in }
    ) async throws -> ReplaySummary {
        let exchanges = trace.exchanges(onWarning: onWarning)
        var summary = try await replay(sequence: exchanges, onOutcome: onOutcome)
        summary.unreadable = exchanges.tally.unreadable
        return summary
    }

    /// Replays any sequence of exchanges: flows run concurrently, each in order; backend-wide calls are barriers.
    public func replay<S: AsyncSequence & Sendable>(
        sequence: S, onOutcome: @escaping @Sendable (ReplayOutcome) -> Void = { _ in }
    ) async throws -> ReplaySummary where S.Element == RecordedExchange {
        var identifiers = IdentifierMap(options.substitutions)
        identifiers.transientLimit = options.transientIdentifiers
        let state = ReplayState(ReplaySummary(identifiers: identifiers), expectedSide: options.substitutions)
        // Unpaced, the I/O thread is what bounds the rate: the outcomes it ends are handed to `onOutcome` by this
        // task, between the exchanges it queues, on another thread. Paced, each is handed on as it ends, so that
        // what the console shows does not wait for the next exchange to be due.
        let handoff = options.pace == .max ? OutcomeHandoff() : nil
        defer { handoff?.drain(into: onOutcome) }
        let scheduler = FlowScheduler<Scheduled>(
            limit: options.concurrentFlows ? options.maxInFlight : 1, executor: transport.preferredTaskExecutor
        ) { item in
            // The whole exchange runs preferring the transport's executor (the scheduler sees to it), so a scope that
            // ends inside it (the retry tally's) resumes there, not on the global pool. `--retry` counts what it sent
            // again for this exchange, on either side.
            var (outcome, tally) = await RetryTally.counting { await self.run(item, state: state) }
            outcome.retries = tally.count
            if tally.count > 0 { state.summary.withLock { $0.retries += tally.count } }
            if let handoff { handoff.append(outcome) } else { onOutcome(outcome) }
        }
        // Its workers wait for flows until the replay ends, however it ends.
        defer { scheduler.close() }
        var persons = PersonLinks()
        let clock = ContinuousClock()
        var start = clock.now
        var first: Date?
        var sent = 0
        for try await exchange in sequence {
            // The schedule: the recorded pace scaled from the recording's first exchange (so the shards of a replay
            // keep one schedule between them), or a fixed rate counted from the first exchange sent.
            if first == nil {
                first = exchange.startedAt
                start = clock.now
            }
            if let partition = options.partition, !partition.owns(exchange) { continue }
            let offset = exchange.startedAt.timeIntervalSince(first ?? exchange.startedAt)
            let due = options.pace.due(index: sent, recordedOffset: offset).map { start + .seconds($0) }
            sent += 1
            if let due, due > clock.now { try await clock.sleep(until: due) }
            let item = Scheduled(exchange: exchange, due: due)
            // Devices sharing a person depend on each other: a switch between them waits for earlier work.
            let crossesFlows = options.concurrentFlows && persons.crossesFlows(exchange)
            if !options.concurrentFlows || exchange.flow == options.sharedFlow || crossesFlows {
                await scheduler.runAlone(item)
            } else {
                await scheduler.submit(item, flow: exchange.flow)
            }
            handoff?.drain(into: onOutcome)
        }
        await scheduler.waitUntilIdle()
        let elapsed = clock.now - start
        return state.summary.withLock { summary in
            summary.timing.elapsed = elapsed.inSeconds
            return summary
        }
    }

    private func run(_ item: Scheduled, state: ReplayState) async -> ReplayOutcome {
        let exchange = options.freshIdentities?.apply(item.exchange) ?? item.exchange
        let transport = client(for: exchange.upstream)
        var request = state.summary.withLock { $0.identifiers.apply(exchange.request) }
        if expectedSide == nil, let token = RedactedToken(request) {
            switch redactedToken(token, exchange) {
            case .send(let redated): request = RedactedToken.replacing(redated, in: request)
            case .cannotJudge(let why, let counted):
                var unsent = ReplayOutcome(
                    seq: exchange.seq, flow: exchange.flow, request: request, expected: exchange.response,
                    actual: nil, differences: [], transportError: nil)
                unsent.recorded = item.exchange.request
                unsent.cannotJudge = why
                state.summary.withLock { $0[keyPath: counted] += 1 }
                return unjudged(unsent, state: state)
            }
        }
        let sent: HTTPRequest
        do {
            // The request as the target gets it, for the outcome; a URL that would leave the target is refused here
            // exactly as the rebasing transport refuses it.
            sent = try (transport as? RebasedTransport)?.rebase(request) ?? request
        } catch {
            // Never sent: the recorded URL would reach another host than the target.
            var refused = ReplayOutcome(
                seq: exchange.seq, flow: exchange.flow, request: exchange.request, expected: exchange.response,
                actual: nil, differences: [], transportError: nil)
            refused.cannotJudge = "\(error)"
            return unjudged(refused, state: state)
        }
        var outcome = ReplayOutcome(
            seq: exchange.seq, flow: exchange.flow, request: sent, expected: exchange.response, actual: nil,
            differences: [], transportError: nil)
        outcome.recorded = item.exchange.request
        if !exchange.omitted.isEmpty {
            // Send what can be sent, so the target's state follows the recording, but judge nothing.
            if !exchange.omitted.contains(where: { $0.hasPrefix("request.") }) {
                outcome.actual = try? await transport.send(request)
                if let expectedSide {
                    _ = try? await expectedSide.send(
                        state.expectedSide.withLock { $0.identifiers.apply(exchange.request) })
                }
            }
            outcome.cannotJudge = exchange.omitted.joined(separator: "; ")
            return unjudged(outcome, state: state)
        }
        let clock = ContinuousClock()
        let sentAt = clock.now
        var latency = Duration.zero
        if let expectedSide {
            outcome = await compareLive(
                outcome, recorded: exchange.request, request: request, actualSide: transport, answer: exchange.response,
                expectedSide: expectedSide, state: state)
            latency = clock.now - sentAt
            if outcome.cannotJudge != nil { return unjudged(outcome, state: state) }
        } else {
            do {
                // Rebased once, above: what goes out is `sent`, through the transport the rebasing one wraps.
                let wire = (transport as? RebasedTransport)?.inner ?? transport
                let live = ContentDecoding.decoded(try await wire.send(sent))
                latency = clock.now - sentAt
                outcome.actual = live
                if let gateway = live.gatewayUnavailable {
                    // A gateway answered in the implementation's place: nothing to compare, nothing to learn.
                    outcome.cannotJudge = "gateway unavailable: \(gateway)"
                    return unjudged(outcome, state: state)
                }
                // Each body is decoded and parsed at most once: for learning ids and for the comparison. Bodies equal
                // byte for byte hold the same ids (nothing to learn), and so do bodies that become equal once the ids
                // already known are put in (``IdentifierMap/applyNoting(_:)`` says when): neither is parsed, unless
                // the comparison needs them. Only where they still differ are both parsed, to learn.
                let recorded = ContentDecoding.decoded(exchange.response)
                var recordedJSON: JSONValue?
                var liveJSON: JSONValue?
                let known = state.summary.withLock { summary -> HTTPResponse? in
                    if recorded.body != live.body,
                        let (equal, wholeIds) = summary.identifiers.remappedBody(recorded.body, equals: live.body)
                    {
                        // Equal once remapped: the live body is the remapped one byte for byte, and is kept as it.
                        guard equal && wholeIds else { return nil }
                        var remapped = summary.identifiers.applyingToFields(recorded)
                        remapped.body = live.body
                        return remapped
                    }
                    let (remapped, wholeIds) = summary.identifiers.applyNoting(recorded)
                    let nothingToLearn = recorded.body == live.body || (wholeIds && remapped.body == live.body)
                    return nothingToLearn ? remapped : nil
                }
                if let known {
                    outcome.expected = known
                } else {
                    recordedJSON = JSONValue.parsedBody(recorded.body)
                    liveJSON = recordedJSON == nil ? nil : JSONValue.parsedBody(live.body)
                    outcome.expected = state.summary.withLock { summary in
                        if let recordedJSON, let liveJSON {
                            summary.identifiers.learn(recorded: recordedJSON, live: liveJSON, minted: options.minted)
                        }
                        return summary.identifiers.apply(recorded)
                    }
                }
                // The origins the recording was made against (the one its request went to, and the upstream's the
                // recorder forwarded it to) become the target's, where the implementation names itself (M12's
                // baseUrl, New-Base-URL, Location): each names its own origin, which is no difference.
                if Self.mayNameAnOrigin(outcome.expected), let to = Self.targetOrigin(sent) {
                    for from in recordedOrigins(exchange) where from != to {
                        outcome.expected = Self.mapOrigin(outcome.expected, from: from, to: to)
                    }
                }
                // The recorded body parsed above stands for the expected one when remapping changed nothing in it.
                let expectedJSON = outcome.expected.body == recorded.body ? recordedJSON : nil
                outcome.differences = ResponseDiff.compare(
                    expected: outcome.expected, actual: live, noise: noise, parsed: (expectedJSON, liveJSON))
                if options.freshIdentities == nil {
                    outcome.differences = LeftoverState.noted(
                        outcome.differences, expected: outcome.expected, actual: live)
                }
            } catch {
                latency = clock.now - sentAt
                outcome.transportError = (error as? TransportError)?.description ?? "\(error)"
                outcome.notice = (error as? TransportError)?.notice
            }
        }
        let kept = outcome
        state.summary.withLock { summary in
            summary.timing.latency.record(latency.inSeconds)
            if let due = item.due { summary.timing.lag.record((sentAt - due).inSeconds) }
            summary.total += 1
            if kept.transportError != nil {
                summary.failed += 1
            } else if kept.differences.isEmpty {
                summary.passed += 1
            } else {
                summary.mismatched += 1
                if kept.differences.contains(where: LeftoverState.isNoted) { summary.leftoverState += 1 }
            }
            if !kept.passed, summary.mismatches.count < options.maxKeptMismatches { summary.mismatches.append(kept) }
        }
        return outcome
    }

    /// What becomes of a redacted token: re-dated (and re-signed below) when a key is given and the recording does
    /// not show it refused for a reason redaction removed, else the exchange cannot be judged (and which count says
    /// why).
    enum TokenFate {
        case send(String)
        case cannotJudge(String, WritableKeyPath<ReplaySummary, Int>)
    }

    func redactedToken(_ token: RedactedToken, _ exchange: RecordedExchange) -> TokenFate {
        guard options.signsRedactedTokens else {
            return .cannotJudge("its request carries a redacted token", \.redactedTokens)
        }
        // A refusal an expiry explains is replayed (re-dated, the token is as long expired); any other refusal may
        // have been for the signature, which redaction replaced: a token signed now would be one never sent.
        let status = exchange.response.status.code
        if status == 401 || status == 403, !token.expired(at: exchange.startedAt) {
            return .cannotJudge(
                "the recording shows its redacted token refused (\(status)) and redaction kept no trace of whether "
                    + "its signature was valid", \.refusedTokens)
        }
        var redated = token.redated(by: Int(Date().timeIntervalSince(exchange.startedAt).rounded()))
        if let fresh = options.freshIdentities, case .object(let claims) = fresh.apply(json: .object(redated.claims)) {
            // The subject is the person the body names, made fresh alike.
            redated.claims = claims
        }
        return .send(redated.text())
    }

    /// Counts `outcome` as an exchange the replay cannot judge and keeps it among the first that did not pass.
    private func unjudged(_ outcome: ReplayOutcome, state: ReplayState) -> ReplayOutcome {
        state.summary.withLock { summary in
            summary.total += 1
            summary.unjudged += 1
            if summary.mismatches.count < options.maxKeptMismatches { summary.mismatches.append(outcome) }
        }
        return outcome
    }

    /// The transport an exchange recorded from `upstream` goes through: the target's, within the exchange
    /// timeout when one is set, sent to the origin configured for the upstream (or for all) when there is one.
    func client(for upstream: String) -> any Transport {
        clients.byUpstream[upstream] ?? clients.other
    }
}
