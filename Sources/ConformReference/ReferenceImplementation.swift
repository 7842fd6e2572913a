import ConformCore
import Foundation
import Synchronization

/// The embedded reference implementation of the mobile and backend APIs: requests in, responses out, no sockets.
///
/// It routes on the request path only, so one instance answers both APIs whatever scheme and host the URL
/// names. Every request runs under one lock, so the state never shows a half-applied change.
public final class ReferenceImplementation: HTTPHandler, Sendable {
    /// The applications and choices this instance serves.
    public let configuration: ReferenceConfiguration
    /// The deliberate bugs switched on (none by default).
    public let faults: Set<ReferenceFault>
    private let engine: ReferenceEngine
    private let state: Mutex<ReferenceState>

    /// Creates an empty implementation serving `configuration`, with `faults` switched on.
    public convenience init(configuration: ReferenceConfiguration = .default, faults: Set<ReferenceFault> = []) {
        self.init(configuration: configuration, faults: faults, clock: { Date() })
    }

    /// Creates an implementation whose notion of "now" (JWT expiry, send times) comes from `clock`.
    public init(
        configuration: ReferenceConfiguration, faults: Set<ReferenceFault>, clock: @escaping @Sendable () -> Date
    ) {
        self.configuration = configuration
        self.faults = faults
        self.engine = ReferenceEngine(configuration: configuration, faults: faults, now: clock)
        self.state = Mutex(ReferenceState(seed: configuration.seed))
    }

    /// Answers one request of the mobile or backend API.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        state.withLock { state in engine.handle(request, state: &state) }
    }

    /// A read-only view of every person and installation, for debugging and tests (not an HTTP endpoint).
    public func snapshot() -> ReferenceSnapshot {
        state.withLock { ReferenceSnapshot($0) }
    }

    /// Broken invariants, each as one sentence; empty when the state is consistent.
    ///
    /// Checked: every installation belongs to exactly one existing person that lists it; at most one primary
    /// device per person; the externalUserId index matches the persons.
    public func checkInvariants() -> [String] {
        state.withLock { $0.invariantViolations() }
    }
}
