import ConformCore
import Foundation
import Synchronization

/// The embedded reference implementation of the mobile and backend APIs: requests in, responses out, no sockets.
///
/// It routes on the request path only, so one instance answers both APIs whatever scheme and host the URL
/// names. Every request runs under one lock, so the state never shows a half-applied change.
///
/// It is both an ``HTTPHandler`` (for a server) and a ``Transport`` (for the runner, in process). The two differ
/// only under the ``ReferenceVariant/latency`` variant: ``handle(_:)`` then blocks its thread, which suits a
/// server's own threads, while ``send(_:)`` suspends without blocking a cooperative thread.
public final class ReferenceImplementation: HTTPHandler, Transport, Sendable {
    /// The applications and choices this instance serves.
    public let configuration: ReferenceConfiguration
    /// The deliberate bugs switched on (none by default).
    public let faults: Set<ReferenceFault>
    /// The conforming variants switched on (none by default).
    public let variants: Set<ReferenceVariant>
    private let engine: ReferenceEngine
    private let clock: @Sendable () -> Date
    private let shaper: VariantResponseShaper
    private let store: Mutex<Store>

    /// The live state and, under ``ReferenceVariant/eventualPeople``, the copies lagging reads see.
    private struct Store: Sendable {
        var current: ReferenceState
        var history: PeopleHistory?
        var stored = StorageCount()
    }

    /// How much data the reference keeps before it refuses writes with 507.
    public let storageLimit: StorageLimit

    /// Creates an empty implementation serving `configuration`, with `faults` and `variants` switched on.
    public convenience init(
        configuration: ReferenceConfiguration = .default, faults: Set<ReferenceFault> = [],
        variants: Set<ReferenceVariant> = [], storageLimit: StorageLimit = .default
    ) {
        self.init(
            configuration: configuration, faults: faults, variants: variants, storageLimit: storageLimit,
            clock: { Date() })
    }

    /// Creates an implementation whose notion of "now" (JWT expiry, send times) comes from `clock`.
    public convenience init(
        configuration: ReferenceConfiguration, faults: Set<ReferenceFault>, clock: @escaping @Sendable () -> Date
    ) {
        self.init(configuration: configuration, faults: faults, variants: [], clock: clock)
    }

    /// Creates an implementation with `faults` and `variants` whose "now" comes from `clock`.
    ///
    /// `clock` drives JWT expiry, send times, ``ReferenceVariant/asyncDelivery`` and
    /// ``ReferenceVariant/eventualPeople``; ``ReferenceVariant/latency`` always waits in real time.
    public init(
        configuration: ReferenceConfiguration, faults: Set<ReferenceFault>, variants: Set<ReferenceVariant>,
        storageLimit: StorageLimit = .default, clock: @escaping @Sendable () -> Date
    ) {
        self.storageLimit = storageLimit
        self.configuration = configuration
        self.faults = faults
        self.variants = variants
        self.clock = clock
        self.engine = ReferenceEngine(configuration: configuration, faults: faults, variants: variants, now: clock)
        self.shaper = VariantResponseShaper(variants: variants)
        var state = ReferenceState(seed: configuration.seed)
        state.ids.opaque = variants.contains(.opaqueIds)
        let history =
            variants.contains(.eventualPeople)
            ? PeopleHistory(initial: state, lag: ReferenceVariant.peopleReadLag.inSeconds) : nil
        self.store = Mutex(Store(current: state, history: history))
    }

    /// How late every answer is: ``ReferenceVariant/responseLatency`` under ``ReferenceVariant/latency``, else zero.
    public var latency: Duration { variants.contains(.latency) ? ReferenceVariant.responseLatency : .zero }

    /// Answers one request of the mobile or backend API; under ``ReferenceVariant/latency`` it blocks the calling
    /// thread first, so call it from a server thread and use ``send(_:)`` from async code.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let response = respond(to: request)
        let delay = latency
        if delay > .zero { Thread.sleep(forTimeInterval: delay.inSeconds) }
        return response
    }

    /// Answers one request in process; under ``ReferenceVariant/latency`` it suspends (never blocking a thread)
    /// and throws `CancellationError` when cancelled while waiting.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = respond(to: request)
        let delay = latency
        if delay > .zero { try await Task.sleep(for: delay) }
        return response
    }

    /// How many times the stored data was measured against ``storageLimit`` (for tests).
    var storageMeasures: Int { store.withLock { $0.stored.measures } }

    /// Answers one request at once, whatever ``latency`` says.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        let now = clock()
        let response = store.withLock { store in
            // Only writes that bring data count; reads and deletes always go through, so space can be freed.
            let body = request.body.count
            let method = request.effectiveMethod
            if body > 0, method != .get, method != .delete {
                guard store.stored.admits(body, limit: storageLimit, state: store.current) else {
                    return StorageLimit.refusal(limit: storageLimit.bytes).response
                }
                store.stored.since += body
            } else if method != .get {
                store.stored.mayHaveFreed = true
            }
            guard let history = store.history else { return engine.handle(request, state: &store.current) }
            if Self.isLaggingRead(request) {
                var view = history.view(at: now, current: store.current)
                return engine.handle(request, state: &view)
            }
            store.history?.willWrite(at: now, current: store.current)
            let response = engine.handle(request, state: &store.current)
            store.history?.didWrite(at: now)
            return response
        }
        return shaper.shape(response, now: now)
    }

    /// Backend People reads that lag under ``ReferenceVariant/eventualPeople``: B1 GET and B5.
    private static func isLaggingRead(_ request: HTTPRequest) -> Bool {
        guard request.effectiveMethod == .get, let route = ReferenceRoute(path: request.path) else { return false }
        switch route {
        case .persons, .pushInstance: return true
        default: return false
        }
    }

    /// A read-only view of every person and installation, for debugging and tests (not an HTTP endpoint).
    public func snapshot() -> ReferenceSnapshot {
        store.withLock { ReferenceSnapshot($0.current) }
    }

    /// Broken invariants, each as one sentence; empty when the state is consistent.
    ///
    /// Checked: every installation belongs to exactly one existing person that lists it; at most one primary
    /// device per person; the externalUserId index matches the persons.
    public func checkInvariants() -> [String] {
        store.withLock { $0.current.invariantViolations() }
    }
}
