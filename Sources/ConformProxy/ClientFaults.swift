import ConformCore
import Foundation
import Synchronization

/// A failure the server side of `serve --check` and `record --check` injects on purpose, to see how an app recovers
/// (`--client-faults`): the same calls fail the same way on every run, so a failure the check finds reproduces.
///
/// `KIND[:ENDPOINT][:N|:P%]`, or `slow=DURATION` / `slow:ENDPOINT=DURATION`:
/// - `error` answers 503 in the profile's error envelope, instead of passing the call on;
/// - `timeout` holds the call until the proxy's request deadline (the app's own timeout usually ends it first);
/// - `reset` closes the connection without an answer (the recording keeps a 502 marked as the reset);
/// - `no-registration` answers `NO_REGISTRATION` for the installation the call names, and for every later call
///   naming it: the server has forgotten it, and the app must register again;
/// - `slow` passes the call on after waiting `DURATION` (every call, or those of `ENDPOINT`, no count);
/// - `offline` takes the server off the network for `DURATION` from the first call (of `ENDPOINT`): that call's
///   connection is closed without an answer, and the listeners close until the window ends, so the app meets
///   refused connections (``OfflineSwitch``).
///
/// `ENDPOINT` is an endpoint id of the profile (`M1`, `M6`, `B4`) or `*`; `N` how many of its calls fail (1 unless
/// given, at most ``maxCount``), or `P%` the chance that each of its calls fails, drawn from the run's seed
/// (``ClientFaultTransport/seed``), so the same seed fails the same calls again. Faults combine: each call meets the
/// first fault that still applies to it.
public struct ClientFault: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case error
        case timeout
        case reset
        case noRegistration = "no-registration"
        case slow
        case offline
    }

    public var kind: Kind
    /// The endpoint id whose calls fail; `nil` for every call.
    public var endpoint: String?
    /// How many calls fail (the first ones); `slow` delays every call it matches.
    public var count: Int
    /// The chance (0 < p ≤ 1) that each matching call fails, instead of the first ``count``.
    public var probability: Double?
    /// How long `slow` waits before passing the call on, or how long `offline` keeps the server down.
    public var delay: Duration?

    /// The most calls one fault makes fail.
    public static let maxCount = 1000
    /// The longest `slow` delay and `offline` window.
    public static let maxDelay = Duration.seconds(120)

    public init(kind: Kind, endpoint: String? = nil, count: Int = 1, delay: Duration? = nil) {
        self.kind = kind
        self.endpoint = endpoint
        self.count = count
        self.delay = delay
    }

    public var description: String {
        var text = kind.rawValue
        if let endpoint { text += ":" + endpoint }
        if let delay { return text + "=" + Self.seconds(delay) }
        if let probability { return text + ":\(Int((probability * 100).rounded()))%" }
        return text + ":\(count)"
    }

    static func seconds(_ duration: Duration) -> String {
        let ms = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return ms % 1000 == 0 ? "\(ms / 1000)s" : "\(ms)ms"
    }

    /// Parses one `--client-faults` value; `known` are the profile's endpoint ids, for the error's suggestion.
    public static func parse(_ text: String, known: [String]) throws(ClientFaultError) -> ClientFault {
        var spec = Substring(text)
        var delay: Duration?
        if let eq = spec.firstIndex(of: "=") {
            let value = spec[spec.index(after: eq)...]
            guard let parsed = Self.duration(value), parsed > .zero, parsed <= maxDelay else {
                throw ClientFaultError(
                    text, "'\(value)' is not a delay from 1ms to 120s; write it like 500ms or 3s")
            }
            delay = parsed
            spec = spec[..<eq]
        }
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard (1...3).contains(parts.count), let kind = Kind(rawValue: parts[0]) else {
            throw ClientFaultError(
                text,
                "expected KIND[:ENDPOINT][:N] with KIND one of "
                    + Kind.allCases.map(\.rawValue).joined(separator: ", "))
        }
        var fault = ClientFault(kind: kind)
        if parts.count > 1, parts[1] != "*" {
            guard known.contains(parts[1]) else {
                throw ClientFaultError(
                    text, "'\(parts[1])' is not an endpoint id of the protocol (\(known.joined(separator: ", ")), or *)"
                )
            }
            fault.endpoint = parts[1]
        }
        if parts.count > 2, parts[2].hasSuffix("%") {
            guard let percent = Int(parts[2].dropLast()), (1...100).contains(percent) else {
                throw ClientFaultError(text, "'\(parts[2])' is not a chance from 1% to 100%")
            }
            fault.probability = Double(percent) / 100
        } else if parts.count > 2 {
            guard let count = Int(parts[2]), (1...maxCount).contains(count) else {
                throw ClientFaultError(text, "'\(parts[2])' is not a count from 1 to \(maxCount) or a chance like 30%")
            }
            fault.count = count
        }
        switch (kind, delay) {
        case (.slow, nil):
            throw ClientFaultError(text, "slow needs a delay: slow=3s or slow:M1=3s")
        case (.offline, nil):
            throw ClientFaultError(text, "offline needs a window: offline=30s or offline:M6=30s")
        case (.slow, let delay?):
            guard parts.count < 3 else { throw ClientFaultError(text, "slow delays every call it matches: no count") }
            fault.delay = delay
        case (.offline, let delay?):
            guard parts.count < 3 else {
                throw ClientFaultError(text, "offline opens one window, at the first call it matches: no count")
            }
            fault.delay = delay
        case (_, .some):
            throw ClientFaultError(text, "only slow and offline take a duration (=DURATION)")
        default:
            break
        }
        return fault
    }

    /// `500ms`, `3s`, `1.5s`.
    static func duration(_ text: Substring) -> Duration? {
        if text.hasSuffix("ms"), let ms = Int(text.dropLast(2)), ms >= 0 { return .milliseconds(ms) }
        if text.hasSuffix("s"), let s = Double(text.dropLast()), s.isFinite, s >= 0, s <= 3600 {
            return .milliseconds(Int((s * 1000).rounded()))
        }
        return nil
    }
}

/// A `--client-faults` value that cannot be read: the value, what is wrong and how to write it.
public struct ClientFaultError: Error, Sendable, Hashable, CustomStringConvertible {
    public var value: String
    public var message: String

    public init(_ value: String, _ message: String) {
        self.value = value
        self.message = message
    }

    public var description: String { "--client-faults \(value): \(message)" }
}

/// The transport below a recording proxy that injects ``ClientFault``s: what it answers is what the app gets and
/// what the recording holds, each injected answer marked with the header ``markHeader`` naming the fault, so a check
/// of the recording (and a reader of it) knows the server caused the failure.
public final class ClientFaultTransport: TransportDecorator, Sendable {
    public let inner: any Transport
    public let faults: [ClientFault]
    let profile: ProtocolProfile
    /// How long a `timeout` holds a call at most (the proxy's deadline ends it first).
    let holdLimit: Duration
    /// The listeners an `offline` fault closes for its window.
    public let offline: OfflineSwitch
    /// What the chances (`P%`) are drawn from: the same seed fails the same calls of the same traffic.
    public let seed: UInt64
    private let state: Mutex<State>

    struct State {
        /// Calls failed so far, by fault index.
        var used: [Int: Int] = [:]
        /// Installations answered `NO_REGISTRATION`, which stay forgotten.
        var forgotten: Set<String> = []
        /// The end of the `offline` window in progress.
        var offlineUntil: ContinuousClock.Instant?
        /// SplitMix64, one draw per call a chance applies to.
        var random: UInt64

        mutating func draw() -> Double {
            random &+= 0x9E37_79B9_7F4A_7C15
            var z = random
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
    }

    /// The header every injected answer carries: `error:M6:1 (call 1 of 1)`.
    public static let markHeader = "Conform-Injected-Fault"
    /// The most installations `no-registration` keeps forgotten.
    static let maxForgotten = 10_000

    public init(
        inner: any Transport, faults: [ClientFault], profile: ProtocolProfile, holdLimit: Duration, seed: UInt64 = 0,
        offline: OfflineSwitch = OfflineSwitch()
    ) {
        self.offline = offline
        self.seed = seed
        self.state = Mutex(State(random: seed))
        self.inner = inner
        self.faults = faults
        self.profile = profile
        self.holdLimit = holdLimit
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let endpoint = profile.endpoints.classify(request)
        let registration = endpoint?.registrationID
        // Which fault this call meets, and the mark it carries.
        let now = ContinuousClock.now
        let met: (fault: ClientFault, mark: String)? = state.withLock { state in
            if let until = state.offlineUntil, now < until {
                // A call on a connection opened before the window, or one the listeners could not refuse.
                return (
                    ClientFault(kind: .offline), "offline (the server is down for \(ClientFault.seconds(until - now)))"
                )
            }
            if let registration, state.forgotten.contains(registration) {
                return (ClientFault(kind: .noRegistration), "no-registration (\(registration) was forgotten)")
            }
            for (index, fault) in faults.enumerated() {
                if let wanted = fault.endpoint, wanted != endpoint?.id { continue }
                if fault.kind == .slow { return (fault, fault.description) }
                if fault.kind == .offline {
                    guard state.used[index, default: 0] == 0 else { continue }
                    state.used[index] = 1
                    state.offlineUntil = now + (fault.delay ?? .zero)
                    return (fault, "\(fault) (the server goes down from this call)")
                }
                if fault.kind == .noRegistration && registration == nil { continue }
                let used = state.used[index, default: 0]
                if let probability = fault.probability {
                    guard state.draw() < probability else { continue }
                } else {
                    guard used < fault.count else { continue }
                }
                state.used[index] = used + 1
                if fault.kind == .noRegistration, let registration, state.forgotten.count < Self.maxForgotten {
                    state.forgotten.insert(registration)
                }
                let which = fault.probability == nil ? "call \(used + 1) of \(fault.count)" : "failure \(used + 1)"
                return (fault, "\(fault) (\(which))")
            }
            return nil
        }
        guard let met else { return try await inner.send(request) }
        var response: HTTPResponse
        switch met.fault.kind {
        case .slow:
            try await Task.sleep(for: met.fault.delay ?? .zero)
            response = try await inner.send(request)
        case .error:
            response = profile.errorEnvelope.response(
                HTTPStatus(503), code: "SERVICE_UNAVAILABLE",
                text: "conform: injected fault \(met.mark); the server could not take the call, send it again")
        case .timeout:
            try await Task.sleep(for: holdLimit)
            throw TransportError(.timeout, "injected fault \(met.mark): no answer within \(holdLimit)")
        case .offline:
            if let window = met.fault.delay { offline.pause(for: window) }
            response = profile.errorEnvelope.response(
                HTTPStatus(502), code: "CONNECTION_REFUSED",
                text: "conform: injected fault \(met.mark); the server was offline, connect again later")
            response.dropsConnection = true
        case .reset:
            // The app gets a closed connection; the recording keeps what stood for it, marked.
            response = profile.errorEnvelope.response(
                HTTPStatus(502), code: "CONNECTION_RESET",
                text: "conform: injected fault \(met.mark); the connection was closed without an answer")
            response.dropsConnection = true
        case .noRegistration:
            response = profile.errorEnvelope.response(
                HTTPStatus(400), code: "NO_REGISTRATION",
                text: "conform: injected fault \(met.mark); register the installation again")
        }
        response.headerFields[Self.markHeader] = met.mark
        return response
    }
}
