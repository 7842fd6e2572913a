internal import CCurl
import ConformCore
import Foundation
import Synchronization

/// Why a server's certificate was refused, told with the fix for that cause: expired (renew it, with its end
/// date), not trusted (the CA file in use, and who named it), or for other names (the names it holds).
///
/// The per-exchange message stays short; the cause and fix go in the error's ``TransportError/notice``, which a run
/// shows once with the number of steps it concerns.
enum TLSDiagnosis {
    enum Cause: Equatable {
        case expired, untrusted, nameMismatch
    }

    /// The cause libcurl's error text names, or `nil` for another TLS failure.
    static func cause(of message: String) -> Cause? {
        let text = message.lowercased()
        if text.contains("certificate has expired") { return .expired }
        if text.contains("subject name matches") || text.contains("does not match target host")
            || text.contains("subject name does not match")
        {
            return .nameMismatch
        }
        if text.contains("self-signed certificate") || text.contains("self signed certificate")
            || text.contains("unable to get local issuer") || text.contains("unable to get issuer")
            || text.contains("unable to verify the first certificate")
        {
            return .untrusted
        }
        return nil
    }

    /// `error` with a short message and the notice of its cause; `error` itself for a cause it cannot tell.
    static func explain(_ error: TransportError, url: String, tls: ClientTLS, proxy: String?) -> TransportError {
        guard let cause = cause(of: error.message) else { return error }
        let parts = URLParts(url)
        let server = parts.authority
        let request = "\(parts.origin)\(parts.path)"
        switch cause {
        case .expired:
            let end = CertificateProbe.facts(of: url, proxy: proxy)?.notAfter.map { " on \($0)" } ?? ""
            return TransportError(
                .tls, "\(request): the server's certificate has expired (see the TLS warning below the steps)",
                notice: "TLS: the certificate of \(server) expired\(end): renew it (trusting another CA will not "
                    + "help; --insecure skips the check, for test servers only)")
        case .untrusted:
            return TransportError(
                .tls, "\(request): the server's certificate is not trusted (see the TLS warning below the steps)",
                notice: "TLS: the certificate of \(server) is not signed by a CA in use: the CA in use is "
                    + "\(caInUse(tls)); give the CA that signed it with --cacert FILE, or skip the check with "
                    + "--insecure (test servers only)")
        case .nameMismatch:
            let host = hostName(of: server)
            let names = CertificateProbe.facts(of: url, proxy: proxy)?.names ?? []
            let held = names.isEmpty ? "other names" : names.joined(separator: ", ")
            return TransportError(
                .tls, "\(request): the server's certificate is not for \(host) (see the TLS warning below the steps)",
                notice: "TLS: the certificate of \(server) is for \(held), not \(host): reach it by one of those "
                    + "names in --target, or have it present a certificate for \(host)")
        }
    }

    /// The host of `authority` (`127.0.0.1:8443` → `127.0.0.1`, `[::1]:8443` → `::1`).
    static func hostName(of authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        guard let colon = authority.lastIndex(of: ":"),
            authority[authority.index(after: colon)...].allSatisfy(\.isNumber)
        else { return authority }
        return String(authority[..<colon])
    }

    /// The CA file the exchange trusted, and what named it.
    static func caInUse(_ tls: ClientTLS) -> String {
        if let file = tls.caFile {
            let source = tls.caSource.map { $0.hasPrefix("--") ? " (given with \($0))" : " (from \($0))" } ?? ""
            return HTTPSyntax.quoted(file) + source
        }
        if let file = CurlDefaults.caFile { return "\(HTTPSyntax.quoted(file)) (the system's, libcurl's default)" }
        return "the system's default store"
    }
}

/// What a server's certificate says, read from a handshake that does not check it: for telling why a checked
/// handshake refused it. One handshake per origin and process.
enum CertificateProbe {
    struct Facts: Sendable, Equatable {
        /// When it stops being valid, as libcurl writes it (`Dec  2 11:32:20 2026 GMT`).
        var notAfter: String?
        /// The DNS names and IP addresses of its subjectAltName.
        var names: [String]
    }

    private static let cache = Mutex<[String: Facts?]>([:])

    static func facts(of url: String, proxy: String?) -> Facts? {
        let origin = URLParts(url).origin
        if let known = cache.withLock({ $0[origin] }) { return known }
        let facts = probe(origin, proxy: proxy)
        cache.withLock { $0[origin] = facts }
        return facts
    }

    private static func probe(_ origin: String, proxy: String?) -> Facts? {
        CurlGlobal.initialize()
        guard let h = curl_easy_init() else { return nil }
        defer { curl_easy_cleanup(h) }
        CurlExchange.setString(h, CURLOPT_URL, origin + "/")
        CurlExchange.setString(h, CURLOPT_PROXY, proxy ?? "")
        CurlExchange.setLong(h, CURLOPT_NOSIGNAL, 1)
        CurlExchange.setLong(h, CURLOPT_CONNECT_ONLY, 1)
        CurlExchange.setLong(h, CURLOPT_TIMEOUT_MS, 5000)
        CurlExchange.setLong(h, CURLOPT_SSL_VERIFYPEER, 0)
        CurlExchange.setLong(h, CURLOPT_SSL_VERIFYHOST, 0)
        CurlExchange.setLong(h, CURLOPT_CERTINFO, 1)
        guard curl_easy_perform(h) == CURLE_OK else { return nil }
        var raw: UnsafeMutableRawPointer?
        guard conform_curl_getinfo_ptr(h, CURLINFO_CERTINFO, &raw) == CURLE_OK, let raw else { return nil }
        let info = raw.assumingMemoryBound(to: curl_certinfo.self).pointee
        guard info.num_of_certs > 0, let chain = info.certinfo, var item = chain[0] else { return nil }
        var facts = Facts(notAfter: nil, names: [])
        while true {
            if let data = item.pointee.data {
                let line = String(cString: data)
                if line.hasPrefix("Expire date:") { facts.notAfter = String(line.dropFirst("Expire date:".count)) }
                if line.hasPrefix("X509v3 Subject Alternative Name:") {
                    facts.names = line.dropFirst("X509v3 Subject Alternative Name:".count)
                        .split(separator: ",").map { entry in
                            let name = entry.trimmingCharacters(in: .whitespaces)
                            return name.split(separator: ":", maxSplits: 1).last.map(String.init) ?? name
                        }
                }
            }
            guard let next = item.pointee.next else { break }
            item = next
        }
        return facts
    }
}
