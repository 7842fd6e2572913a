import ConformCore
import ConformTraffic

/// The id maps of a differential beside the replay's own: the expected side's recorded-to-live map, and for each
/// side the ids it minted back to the recorded ones (each side is read in the recording's ids before comparing).
struct ExpectedSideIdentifiers: Sendable {
    var identifiers: IdentifierMap
    var backExpected = IdentifierMap()
    var backActual = IdentifierMap()
}

extension Replayer {
    /// The `recorded` request sent to both sides at once, each in its own ids (`request` is B's), and where the
    /// answer of `actualSide` (B) differs from the expected side's (A): both read in the recording's ids, A's as
    /// expected. One side failing where the other answered is a difference; both failing alike is none. Each side
    /// answers within the exchange timeout when one is set.
    func compareLive(
        _ outcome: ReplayOutcome, recorded: HTTPRequest, request: HTTPRequest, actualSide: any Transport,
        answer recordedAnswer: HTTPResponse, expectedSide: any Transport, state: ReplayState
    ) async -> ReplayOutcome {
        var outcome = outcome
        let requestA = state.expectedSide.withLock { $0.identifiers.apply(recorded) }
        let sideA: any Transport =
            options.exchangeTimeout.map { DeadlineTransport(inner: expectedSide, deadline: $0) } ?? expectedSide
        async let liveA = Self.answer(sideA, requestA)
        async let liveB = Self.answer(actualSide, request)
        let (a, b) = await (liveA, liveB)
        let recordedJSON = JSONValue.parsedBody(ContentDecoding.decoded(recordedAnswer).body)
        for (side, answer) in [("A", a), ("B", b)] {
            if case .success(let response) = answer, let gateway = response.gatewayUnavailable {
                // A gateway answered for one side: nothing was learnt about it, so nothing can be compared.
                outcome.actual = try? b.get()
                outcome.cannotJudge = "gateway unavailable on \(side): \(gateway)"
                return outcome
            }
        }
        // A failure the run tells once (a TLS cause) is counted on the exchange, whichever side it was.
        for case .failure(let failure) in [a, b] where outcome.notice == nil { outcome.notice = failure.notice }
        switch (a, b) {
        case (.success(let x), .success(let y)):
            outcome.actual = y
            let (jx, jy) = (JSONValue.parsedBody(x.body), JSONValue.parsedBody(y.body))
            let (nx, ny) = state.summary.withLock { summary in
                state.expectedSide.withLock { ids in
                    if let recordedJSON, let jx {
                        for pair in ids.identifiers.learn(recorded: recordedJSON, live: jx, keys: options.mintedKeys) {
                            ids.backExpected.set(pair.live, pair.recorded)
                        }
                    }
                    if let recordedJSON, let jy {
                        for pair in summary.identifiers.learn(
                            recorded: recordedJSON, live: jy, keys: options.mintedKeys)
                        {
                            ids.backActual.set(pair.live, pair.recorded)
                        }
                    }
                    return (ids.backExpected.apply(x), ids.backActual.apply(y))
                }
            }
            // Each side names its own origin (M12's baseUrl, New-Base-URL, Location): A's is read as B's.
            let (from, to) = (Self.origin(expectedSide, requestA), Self.origin(actualSide, request))
            outcome.expected = from.isEmpty || to.isEmpty || from == to ? nx : Self.mapOrigin(nx, from: from, to: to)
            outcome.differences = ResponseDiff.compare(expected: outcome.expected, actual: ny, noise: noise)
        case (.failure(let e), .success(let y)):
            outcome.actual = y
            outcome.differences = [Mismatch(path: "response", expected: "A failed: \(e.message)", actual: "B answered")]
        case (.success, .failure(let e)):
            outcome.differences = [Mismatch(path: "response", expected: "A answered", actual: "B failed: \(e.message)")]
        case (.failure(let x), .failure(let y)):
            if x != y {
                outcome.differences = [
                    Mismatch(path: "response", expected: "A failed: \(x.message)", actual: "B failed: \(y.message)")
                ]
            }
        }
        return outcome
    }

    /// The origin `request` reaches through `transport`: the base of the first ``RebasedTransport`` among its
    /// decorators, else the request's own (empty for an origin-form URL).
    static func origin(_ transport: any Transport, _ request: HTTPRequest) -> String {
        var current: any Transport = transport
        while true {
            if let rebased = current as? RebasedTransport { return URLParts(rebased.base).origin }
            guard let decorator = current as? any TransportDecorator else { return URLParts(request.url).origin }
            current = decorator.inner
        }
    }

    /// The answer of `transport`, decoded (compression is representation, not behaviour), or why none came.
    static func answer(_ transport: any Transport, _ request: HTTPRequest) async -> Result<HTTPResponse, DiffFailure> {
        do {
            return .success(ContentDecoding.decoded(try await transport.send(request)))
        } catch {
            var failure = DiffFailure((error as? TransportError)?.description ?? "\(error)")
            failure.notice = (error as? TransportError)?.notice
            return .failure(failure)
        }
    }
}
