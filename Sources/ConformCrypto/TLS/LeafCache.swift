import Foundation
import Synchronization

/// Leaf certificates issued by a CA on demand, kept in memory per set of names: at most ``capacity`` (the least
/// recently used goes first), each re-issued once less than a day of its validity is left.
public final class LeafCache: Sendable {
    public let authority: CertificateAuthority
    public let capacity: Int
    private let now: @Sendable () -> Date
    private let state = Mutex<(entries: [[ServerName]: IssuedCertificate], order: [[ServerName]], issued: Int)>(
        ([:], [], 0))

    public init(authority: CertificateAuthority, capacity: Int = 256, now: @escaping @Sendable () -> Date = Date.init) {
        self.authority = authority
        self.capacity = max(1, capacity)
        self.now = now
    }

    /// How many leaves have been issued so far (cache misses and renewals).
    public var issuedCount: Int { state.withLock { $0.issued } }

    /// How many leaves are kept now.
    public var count: Int { state.withLock { $0.entries.count } }

    /// The leaf for `names` (order and duplicates do not matter), issued when none is kept or it expires within a day.
    public func leaf(for names: [ServerName]) throws(TLSError) -> IssuedCertificate {
        let key = Array(Set(names)).sorted()
        let current = now()
        let kept: IssuedCertificate? = state.withLock { state in
            guard let entry = state.entries[key], entry.notAfter.timeIntervalSince(current) > 86_400 else { return nil }
            state.order.removeAll { $0 == key }
            state.order.append(key)
            return entry
        }
        if let kept { return kept }
        // Issued outside the lock: signing takes a while and must not hold up other names.
        let leaf = try authority.issue(for: names, now: current)
        state.withLock { state in
            if state.entries.updateValue(leaf, forKey: key) == nil, state.entries.count > capacity,
                let oldest = state.order.first
            {
                state.order.removeFirst()
                state.entries[oldest] = nil
            }
            state.order.removeAll { $0 == key }
            state.order.append(key)
            state.issued += 1
        }
        return leaf
    }
}
