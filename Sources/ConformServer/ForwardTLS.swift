internal import CSSL
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The TLS server contexts of a forward proxy, one per intercepted host (at most 256, the oldest first out), each
/// with the leaf its ``ForwardProxyServer`` was given for that host.
final class ForwardTLSContexts: Sendable {
    private let identity: @Sendable (String) -> TLSIdentity?
    private let kept = Mutex<(contexts: [String: TLSContext], order: [String])>(([:], []))

    init(identity: @escaping @Sendable (String) -> TLSIdentity?) {
        self.identity = identity
    }

    /// The context for `host`, made on first use; `nil` when no certificate can be had for it.
    func context(for host: String) -> TLSContext? {
        if let context = kept.withLock({ $0.contexts[host] }) { return context }
        guard let identity = identity(host), let context = TLSContext(host: host, identity: identity) else {
            return nil
        }
        kept.withLock { kept in
            if kept.contexts.updateValue(context, forKey: host) == nil {
                kept.order.append(host)
                if kept.order.count > 256 { kept.contexts[kept.order.removeFirst()] = nil }
            }
        }
        return context
    }
}

/// An OpenSSL server context presenting one host's leaf; the handshake fails when the client's SNI names another.
final class TLSContext: @unchecked Sendable {
    let host: String
    let pointer: OpaquePointer
    private let hostBox: Unmanaged<HostName>

    init?(host: String, identity: TLSIdentity) {
        guard let method = TLS_server_method(), let context = SSL_CTX_new(method) else { return nil }
        let loaded = identity.withPEM { key, chain in conform_ssl_ctx_use_pem(context, key, chain) }
        guard loaded == 1, conform_ssl_ctx_defaults(context) == 1 else {
            SSL_CTX_free(context)
            return nil
        }
        conform_ssl_ctx_set_alpn(context)
        self.host = host
        self.pointer = context
        self.hostBox = Unmanaged.passRetained(HostName(host))
        conform_ssl_ctx_set_servername(context, conformForwardServerName, hostBox.toOpaque())
    }

    deinit {
        SSL_CTX_free(pointer)
        hostBox.release()
    }
}

/// The host a context is for, read by its SNI callback.
final class HostName: Sendable {
    let text: String
    init(_ text: String) { self.text = text }
}

/// The SNI check: no name (an IP literal, or an old client) goes on with the `CONNECT` host's leaf; a name that is
/// not the `CONNECT` host ends the handshake with `unrecognized_name`, so a tunnel never stands for another host.
func conformForwardServerName(
    _ ssl: OpaquePointer?, _ alert: UnsafeMutablePointer<Int32>?, _ arg: UnsafeMutableRawPointer?
) -> Int32 {
    guard let ssl, let alert, let arg else { return 0 }
    let expected = Unmanaged<HostName>.fromOpaque(arg).takeUnretainedValue().text
    guard let name = conform_ssl_servername(ssl) else { return conform_ssl_sni_ok() }
    let sent = ForwardAuthority.normalized(String(cString: name))
    return sent == expected ? conform_ssl_sni_ok() : conform_ssl_sni_fatal(alert)
}

/// One accepted TLS connection on a non-blocking socket.
final class TLSStream {
    let ssl: OpaquePointer
    let socket: Int32

    init?(context: TLSContext, socket: Int32) {
        guard let ssl = SSL_new(context.pointer) else { return nil }
        guard SSL_set_fd(ssl, socket) == 1 else {
            SSL_free(ssl)
            return nil
        }
        self.ssl = ssl
        self.socket = socket
    }

    deinit { SSL_free(ssl) }

    /// Completes the server handshake by `deadline`; `false` when it fails, is refused or takes too long.
    func accept(by deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let result = SSL_accept(ssl)
            if result == 1 { return true }
            let events: Int16
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ: events = Int16(POLLIN)
            case SSL_ERROR_WANT_WRITE: events = Int16(POLLOUT)
            default:
                ERR_clear_error()
                return false
            }
            guard SocketIO.wait(socket, events: events, until: deadline) else { return false }
        }
    }

    /// Reads decrypted bytes.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> SocketIO.Outcome {
        let count = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        if count > 0 { return .bytes(Int(count)) }
        return outcome(count)
    }

    /// Encrypts and writes bytes.
    func write(_ buffer: UnsafeRawBufferPointer) -> SocketIO.Outcome {
        let count = SSL_write(ssl, buffer.baseAddress, Int32(buffer.count))
        if count > 0 { return .bytes(Int(count)) }
        return outcome(count)
    }

    /// Whether decrypted bytes are waiting in OpenSSL's buffer (poll would not say so).
    var hasPending: Bool { SSL_pending(ssl) > 0 }

    /// Sends close_notify without waiting for the peer's.
    func shutdown() { _ = SSL_shutdown(ssl) }

    private func outcome(_ result: Int32) -> SocketIO.Outcome {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return .wouldBlock(Int16(POLLIN))
        case SSL_ERROR_WANT_WRITE: return .wouldBlock(Int16(POLLOUT))
        default:
            ERR_clear_error()
            return .closed
        }
    }
}
