import ConformCore
import ConformCrypto
import ConformDiagnostics
import ConformServer

#if canImport(Glibc)
    import Glibc
#endif

extension ProxySession {
    /// Makes the session a forward proxy (`record --forward`) for `policy`: served by a ``ForwardProxyServer`` on the
    /// session's address, each allowed host opened with a leaf of its own from `authority` (issued once per host
    /// and kept), refusals and failed handshakes told to `notices`.
    public mutating func serveForward(
        policy: ForwardPolicy, authority: CertificateAuthority, notices: ForwardNotices
    ) {
        let leaves = LeafCache(authority: authority)
        let fingerprint = authority.certificate.sha256Fingerprint
        let listen = self.listen
        Self.raiseDescriptorLimit()
        forward = policy
        self.notices = notices
        serving = { handler, serverLimits in
            let server = try ForwardProxyServer(
                handler: handler, host: listen.host, port: listen.port, limits: serverLimits, policy: policy,
                identity: { host in
                    guard let name = ServerName(host), let leaf = try? leaves.leaf(for: [name]) else { return nil }
                    return TLSIdentity(keyPEM: leaf.key.pem, certificatePEM: leaf.certificate.pem)
                }, notices: notices)
            try server.start()
            let notes =
                ["TLS: allowed hosts are opened with leaves from the local CA (SHA-256 \(fingerprint))"]
                + DeviceAddresses.notes(host: listen.host, port: server.boundPort, scheme: "http")
            return Listening(baseURL: server.baseURL, notes: notes, stop: server.stop)
        }
    }

    /// Lets the forward proxy hold what its limits allow: up to 922 connections waiting for their head, 512 tunnels
    /// with two descriptors each, and 1,024 connections in each of its two servers need more than the 1,024
    /// descriptors a shell often allows by default; the soft limit is raised towards the hard one (8,192 at most),
    /// never lowered.
    public static func raiseDescriptorLimit(to wanted: rlim_t = 8192) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < wanted else { return }
        limit.rlim_cur = min(wanted, limit.rlim_max)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

extension CertificateAuthorityStore {
    /// The local CA, made first when there is none, with what to tell the user once when it was just made; the
    /// problem as a diagnostic when it can be neither read nor made.
    public func loadOrCreateNoting() -> Result<(authority: CertificateAuthority, notices: [String]), Diagnostic> {
        do {
            let (authority, created) = try loadOrCreate()
            let notices =
                created
                ? ["Made the local CA in \(directory); run 'conform ca' to export it for clients and devices"] : []
            return .success((authority, notices))
        } catch {
            return .failure(Diagnostic(.tlsUnusable, message: error.message, help: "see docs/tls.md"))
        }
    }
}
