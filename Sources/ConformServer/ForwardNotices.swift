import Synchronization

/// What a forward proxy refused or could not open, said as it happens and counted for the end: a `CONNECT` or an
/// absolute URL it would not forward (its line names the `--allow-host` that would allow it), and a tunnel whose TLS
/// handshake failed (no handshake, another name in SNI, or a client that closed the tunnel once it saw the leaf: it
/// does not trust the local CA, or pins its certificates).
///
/// A line is written the first time a reason comes, so a client retrying in a loop (or an attack) cannot flood the
/// console; after ``maxLines`` distinct lines the rest are only counted.
public final class ForwardNotices: Sendable {
    /// The kinds of refusal and failure, counted apart.
    public enum Kind: Sendable, Hashable, CaseIterable {
        case refusedConnect
        case refusedRequest
        case noHandshake
        case wrongName
        case untrusted
    }

    /// The most distinct lines written.
    public static let maxLines = 100

    private let sink: @Sendable (String) -> Void
    private let state = Mutex<(counts: [Kind: Int], seen: Set<String>, silenced: Bool)>(([:], [], false))

    /// Notices written to `sink` (one line each, without its newline).
    public init(sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
    }

    /// Counts one `kind` and writes `line` the first time it comes.
    public func note(_ kind: Kind, _ line: String) {
        let write = state.withLock { state -> String? in
            state.counts[kind, default: 0] += 1
            guard !state.seen.contains(line) else { return nil }
            guard state.seen.count < Self.maxLines else {
                if state.silenced { return nil }
                state.silenced = true
                return "… more refusals and failed handshakes are counted, not shown"
            }
            state.seen.insert(line)
            return line
        }
        if let write { sink(write) }
    }

    /// How many of `kind` came.
    public func count(_ kind: Kind) -> Int { state.withLock { $0.counts[kind] ?? 0 } }

    /// The lines a proxy ends with: what it refused and which handshakes failed, when anything was.
    public var summary: [String] {
        let counts = state.withLock { $0.counts }
        func n(_ kind: Kind) -> Int { counts[kind] ?? 0 }
        var lines: [String] = []
        let connects = n(.refusedConnect)
        let requests = n(.refusedRequest)
        if connects + requests > 0 {
            lines.append(
                "Refused \(connects) CONNECT\(connects == 1 ? "" : "s") and \(requests) plain request"
                    + "\(requests == 1 ? "" : "s") (hosts or ports not allowed, hosts not reached, limits); none was "
                    + "recorded")
        }
        let failed = n(.noHandshake) + n(.wrongName) + n(.untrusted)
        if failed > 0 {
            lines.append(
                "TLS handshakes that failed in intercepted tunnels: \(failed) (\(n(.untrusted)) closed by a client that "
                    + "does not trust the local CA or pins certificates, \(n(.wrongName)) naming another host, "
                    + "\(n(.noHandshake)) with no handshake)")
        }
        return lines
    }
}
