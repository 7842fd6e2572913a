import ConformCore
import ConformCrypto
import ConformDiagnostics
import ConformServer
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a serving command's listeners speak: plain HTTP, or HTTPS with a certificate from the local CA or the
/// user's own, on the usual port or on a second one beside plain HTTP.
public struct ListenerTLS: Sendable {
    /// The key and certificate of the HTTPS listener; `nil` for plain HTTP only.
    public var identity: TLSIdentity?
    /// A second listener's port for HTTPS beside plain HTTP, or `nil` for HTTPS on the usual port.
    public var extraPort: UInt16?
    /// Where the certificate came from, for the banner.
    public var about: String

    public static let plain = ListenerTLS(identity: nil, extraPort: nil, about: "")

    /// Where the certificate comes from.
    public enum Source: Sendable {
        /// A leaf from the local CA (``CertificateAuthorityStore/loadOrCreateNoting()``) for the listener's own
        /// names and `extraNames`.
        case localCA(CertificateAuthority, extraNames: [ServerName])
        /// The user's own PEM chain and unencrypted key, at paths as the user wrote them (`resolve` finds them).
        case own(certificateFile: String, keyFile: String)
    }

    /// The listener's certificate for `host` from `source`, or the problem, naming the file it comes from.
    public static func make(
        _ source: Source, host: String, extraPort: UInt16?, resolve: (String) -> String = { $0 }
    ) -> Result<ListenerTLS, Diagnostic> {
        switch source {
        case .localCA(let authority, let extraNames):
            return fromLocalCA(authority, names: listenNames(host) + extraNames, extraPort: extraPort)
        case .own(let certificateFile, let keyFile):
            return own(certificateFile, keyFile, extraPort: extraPort, resolve: resolve)
        }
    }

    private static func fromLocalCA(_ authority: CertificateAuthority, names: [ServerName], extraPort: UInt16?)
        -> Result<ListenerTLS, Diagnostic>
    {
        do {
            let leaf = try authority.issue(for: names)
            let shown = leaf.names.map(\.text).joined(separator: ", ")
            let fingerprint = authority.certificate.sha256Fingerprint
            return .success(
                ListenerTLS(
                    identity: TLSIdentity(keyPEM: leaf.key.pem, certificatePEM: leaf.certificate.pem),
                    extraPort: extraPort, about: "certificate for \(shown) from the local CA (SHA-256 \(fingerprint))"))
        } catch {
            return .failure(Diagnostic(.tlsUnusable, message: error.message, help: "see docs/tls.md"))
        }
    }

    /// The user's own certificate chain and key, each read on its own (at most 1 MiB), so a failure names the file
    /// it comes from, and checked to belong together.
    private static func own(
        _ certificateFile: String, _ keyFile: String, extraPort: UInt16?, resolve: (String) -> String
    ) -> Result<ListenerTLS, Diagnostic> {
        func read(_ path: String) -> Result<String, Diagnostic> {
            guard let data = FileManager.default.contents(atPath: resolve(path)), data.count <= 1 << 20 else {
                return .failure(
                    Diagnostic(
                        .fileUnreadable, file: path, message: "cannot read the file (or it is larger than 1 MiB)",
                        help: "check that it exists and is a PEM file"))
            }
            return .success(String(decoding: data, as: UTF8.self))
        }
        let certificateText: String
        let keyText: String
        switch (read(certificateFile), read(keyFile)) {
        case (.failure(let problem), _), (_, .failure(let problem)): return .failure(problem)
        case (.success(let certificate), .success(let key)): (certificateText, keyText) = (certificate, key)
        }
        /// `text` parsed from PEM, or the problem naming the file it came from.
        func parsed<Value>(
            _ file: String, _ text: String, _ parse: (String) throws(TLSError) -> Value,
            help: @autoclosure () -> String
        ) -> Result<Value, Diagnostic> {
            do {
                return .success(try parse(text))
            } catch {
                return .failure(Diagnostic(.tlsUnusable, file: file, message: error.message, help: help()))
            }
        }
        let certificate: Certificate
        let key: PrivateKey
        switch (
            parsed(
                certificateFile, certificateText, Certificate.init(pem:),
                help: "--tls-cert takes a PEM certificate chain (leaf first), --tls-key its PEM key"),
            parsed(
                keyFile, keyText, PrivateKey.init(pem:),
                help: PrivateKey.isEncrypted(pem: keyText)
                    ? "openssl pkey -in \(keyFile) -out plain-key.pem asks for the passphrase once and writes "
                        + "the key unencrypted; pass --tls-key plain-key.pem"
                    : "--tls-key takes the unencrypted PEM private key of --tls-cert")
        ) {
        case (.failure(let problem), _), (_, .failure(let problem)): return .failure(problem)
        case (.success(let parsedCertificate), .success(let parsedKey)):
            (certificate, key) = (parsedCertificate, parsedKey)
        }
        guard certificate.matches(key) else {
            return .failure(
                Diagnostic(
                    .tlsUnusable, file: keyFile, message: "this key does not belong to \(certificateFile)",
                    help: "give the key the certificate was made for"))
        }
        return .success(
            ListenerTLS(
                identity: TLSIdentity(keyPEM: keyText, certificatePEM: certificateText), extraPort: extraPort,
                about: "certificate \(certificateFile) (\(certificate.subject))"))
    }

    /// The names a listener on `host` is reached by: the address itself (every local address for a wildcard, and
    /// the machine's name), and always localhost, 127.0.0.1 and ::1.
    public static func listenNames(_ host: String) -> [ServerName] {
        var names: [String] = []
        if host == "0.0.0.0" || host == "::" || host == "[::]" {
            names += localAddresses()
            var buffer = [CChar](repeating: 0, count: 256)
            if gethostname(&buffer, buffer.count - 1) == 0 {
                names.append(String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self))
            }
        } else {
            names.append(host)
        }
        names += ["localhost", "127.0.0.1", "::1"]
        return names.compactMap(ServerName.init).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }

    /// The IPv4 and IPv6 addresses of this machine's interfaces (link-local IPv6 left out: no client names it).
    public static func localAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var out: [String] = []
        var cursor = list
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else {
                continue
            }
            let text = String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
            if !text.contains("%") && !text.lowercased().hasPrefix("fe80") { out.append(text) }
        }
        return out
    }
}
