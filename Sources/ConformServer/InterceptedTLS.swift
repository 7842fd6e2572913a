internal import CGnuTLS
import ConformCore
import Synchronization

/// A leaf and its key as GnuTLS presents them to the clients of intercepted tunnels; freed once no tunnel and no
/// proxy holds it.
final class TLSCredential: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<conform_tls_credential>

    init?(_ identity: TLSIdentity) {
        guard let pointer = identity.withPEM({ conform_tls_credential_new($0, $1) }) else { return nil }
        self.pointer = pointer
    }

    deinit { conform_tls_credential_free(pointer) }
}

/// Handshakes of intercepted tunnels that failed: no ClientHello in time, bytes that are none, or an SNI name other
/// than the tunnel's host.
final class HandshakeFailures: Sendable {
    private let count = Atomic<Int>(0)
    let notices: ForwardNotices?

    init(notices: ForwardNotices? = nil) { self.notices = notices }

    var value: Int { count.load(ordering: .relaxed) }

    func add(_ kind: ForwardNotices.Kind, _ line: String) {
        count.add(1, ordering: .relaxed)
        notices?.note(kind, line)
    }
}

/// One tunnel handed to an intercepting ``HTTPServer``: the host its leaf is for (and its SNI must name) and whether
/// its handshake got as far as choosing a leaf.
final class Interception: Sendable {
    let host: String
    let credential: TLSCredential
    let failures: HandshakeFailures
    private let chosen = Atomic<Bool>(false)
    private let served = Atomic<Bool>(false)
    /// Whether the handshake already failed and was counted (a name other than the tunnel's host).
    private let refused = Atomic<Bool>(false)

    init(host: String, credential: TLSCredential, failures: HandshakeFailures) {
        self.host = host
        self.credential = credential
        self.failures = failures
    }

    /// Marks the handshake as having reached the choice of a leaf; `false` if it already had (once per tunnel).
    func reachCertificate() -> Bool { !chosen.exchange(true, ordering: .acquiringAndReleasing) }

    /// A request came through the tunnel: its client trusted the leaf.
    func requestArrived() { served.store(true, ordering: .releasing) }

    /// The handshake failed for naming another host: counted once, there.
    func refuseName(_ name: String) {
        refused.store(true, ordering: .releasing)
        failures.add(
            .wrongName,
            "a tunnel to \(host) named \(HTTPSyntax.quoted(name)) in its TLS handshake (SNI must name the CONNECT host)"
        )
    }

    /// The tunnel's connection closed: a handshake that never reached the choice of a leaf failed, and a client that
    /// saw the leaf and sent nothing did not trust it (or pins certificates).
    func closed() {
        if refused.load(ordering: .acquiring) { return }
        if !chosen.load(ordering: .acquiring) {
            failures.add(.noHandshake, "no TLS handshake came in a tunnel to \(host) (the client sent none in time)")
        } else if !served.load(ordering: .acquiring) {
            failures.add(
                .untrusted,
                "a client closed its tunnel to \(host) once it saw the leaf, sending no request: it does not trust the "
                    + "local CA or pins certificates (install the CA as docs/devices.md says)")
        }
    }
}

/// The tunnels whose handshake GnuTLS may be running, by socket. GnuTLS's certificate callback knows a connection
/// only by the socket libmicrohttpd gave it, so the registry is one for the process: a socket number belongs to one
/// connection until that connection is closed, and an entry is removed (``remove(_:_:)``) before its socket is.
enum InterceptedSockets {
    private static let entries = Mutex<[Int32: Interception]>([:])

    static func register(_ socket: Int32, _ interception: Interception) {
        entries.withLock { $0[socket] = interception }
    }

    /// Removes the entry of `socket` if it is still `interception`'s.
    static func remove(_ socket: Int32, _ interception: Interception) {
        entries.withLock { entries in
            if entries[socket] === interception { entries[socket] = nil }
        }
    }

    static func find(_ socket: Int32) -> Interception? { entries.withLock { $0[socket] } }
}

/// GnuTLS asks for the leaf of the tunnel on `socket`; `serverName` is the SNI name the client sent, if any. No name
/// (an IP literal, an old client) gets the tunnel's leaf; a name other than the tunnel's host gets none.
@_cdecl("conform_forward_tls_lookup")
func conformForwardTLSLookup(
    _ socket: Int32, _ serverName: UnsafePointer<CChar>?,
    _ found: UnsafeMutablePointer<UnsafeMutablePointer<conform_tls_credential>?>?
) -> Int32 {
    guard let found, let interception = InterceptedSockets.find(socket), interception.reachCertificate() else {
        return Int32(CONFORM_TLS_UNKNOWN.rawValue)
    }
    if let serverName, ForwardAuthority.normalized(String(cString: serverName)) != interception.host {
        interception.refuseName(String(cString: serverName))
        return Int32(CONFORM_TLS_WRONG_NAME.rawValue)
    }
    found.pointee = interception.credential.pointer
    return Int32(CONFORM_TLS_PRESENT.rawValue)
}
