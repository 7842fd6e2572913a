import Synchronization

/// The leaves a forward proxy presents, one per intercepted host, made on first use and made again after a day (a
/// leaf is valid for seven, `docs/tls.md`), so a proxy that runs for weeks never presents an expired one.
///
/// Only allowed hosts (and the events host) are intercepted, and they are named one by one (no wildcards), so the
/// hosts are as many as the user named. A credential replaced by a newer one is kept until the proxy is gone: a
/// tunnel's TLS session may still point at it, and there is at most one a host a day.
final class ForwardCredentials: Sendable {
    private struct Kept {
        var current: [String: (credential: TLSCredential, made: ContinuousClock.Instant)] = [:]
        var replaced: [TLSCredential] = []
    }

    private let identity: @Sendable (String) -> TLSIdentity?
    private let renewal: Duration
    private let kept = Mutex(Kept())

    init(identity: @escaping @Sendable (String) -> TLSIdentity?, renewal: Duration = .seconds(86_400)) {
        self.identity = identity
        self.renewal = renewal
    }

    /// The credential for `host`; `nil` when no certificate can be had for it.
    func credential(for host: String, now: ContinuousClock.Instant = .now) -> TLSCredential? {
        if let entry = kept.withLock({ $0.current[host] }), entry.made.duration(to: now) < renewal {
            return entry.credential
        }
        guard let identity = identity(host), let credential = TLSCredential(identity) else { return nil }
        return kept.withLock { kept in
            if let entry = kept.current[host] {
                if entry.made.duration(to: now) < renewal { return entry.credential }
                kept.replaced.append(entry.credential)
            }
            kept.current[host] = (credential, now)
            return credential
        }
    }
}
