import ConformCore
import ConformCrypto
import ConformDiagnostics
import ConformServer
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a serving command's `--tls`, `--tls-cert`/`--tls-key`, `--tls-name` and `--tls-port` ask for.
struct ListenerTLS {
    /// The key and certificate of the HTTPS listener; `nil` for plain HTTP only.
    var identity: TLSIdentity?
    /// A second listener's port for HTTPS beside plain HTTP, or `nil` for HTTPS on the usual port.
    var extraPort: UInt16?
    /// Where the certificate came from, for the banner.
    var about: String

    static let plain = ListenerTLS(identity: nil, extraPort: nil, about: "")

    /// Reads the options; a problem with the CA or the files is reported and gives `nil`.
    static func resolve(_ parsed: Arguments, host: String, subcommand: String, io: CommandIO) throws(UsageError)
        -> ListenerTLS?
    {
        let certificateFile = parsed.value("--tls-cert")
        let keyFile = parsed.value("--tls-key")
        let extraPort = try parsed.port("--tls-port")
        let local = parsed.has("--tls") || (extraPort != nil && certificateFile == nil)
        let extraNames = parsed.values("--tls-name")
        if !local && certificateFile == nil && keyFile == nil {
            if !extraNames.isEmpty {
                throw UsageError(message: "--tls-name names a --tls certificate; add --tls", subcommand: subcommand)
            }
            return .plain
        }
        if (certificateFile == nil) != (keyFile == nil) {
            throw UsageError(message: "--tls-cert and --tls-key go together", subcommand: subcommand)
        }
        if let certificateFile, let keyFile {
            if parsed.has("--tls") || !extraNames.isEmpty {
                throw UsageError(
                    message: "--tls and --tls-name make a certificate from the local CA; --tls-cert brings your own: "
                        + "use one or the other", subcommand: subcommand)
            }
            return own(certificateFile, keyFile, extraPort: extraPort, io: io)
        }
        var names: [ServerName] = []
        for text in extraNames {
            guard let name = ServerName(text) else {
                throw UsageError(
                    message: "--tls-name \(HTTPSyntax.quoted(text)) is not a DNS name or an IP address",
                    subcommand: subcommand)
            }
            names.append(name)
        }
        return fromLocalCA(names: listenNames(host) + names, extraPort: extraPort, io: io)
    }

    /// A leaf from the local CA (made first when there is none) for `names`.
    private static func fromLocalCA(names: [ServerName], extraPort: UInt16?, io: CommandIO) -> ListenerTLS? {
        guard let store = CACommand.store(io) else { return nil }
        do {
            let (authority, created) = try store.loadOrCreate()
            if created {
                io.out.write(
                    "Made the local CA in \(store.directory); run 'conform ca' to export it for clients and devices\n")
            }
            let leaf = try authority.issue(for: names)
            let shown = leaf.names.map(\.text).joined(separator: ", ")
            return ListenerTLS(
                identity: TLSIdentity(keyPEM: leaf.key.pem, certificatePEM: leaf.certificate.pem),
                extraPort: extraPort,
                about: "certificate for \(shown) from the local CA (SHA-256 \(authority.certificate.sha256Fingerprint))"
            )
        } catch {
            io.report(Diagnostic(.tlsUnusable, message: error.message, help: "see docs/tls.md"))
            return nil
        }
    }

    /// The user's own certificate chain and key, checked to belong together.
    private static func own(_ certificateFile: String, _ keyFile: String, extraPort: UInt16?, io: CommandIO)
        -> ListenerTLS?
    {
        func read(_ path: String) -> String? {
            guard let data = FileManager.default.contents(atPath: io.resolve(path)), data.count <= 1 << 20 else {
                io.report(
                    Diagnostic(
                        .fileUnreadable, file: path, message: "cannot read the file (or it is larger than 1 MiB)",
                        help: "check that it exists and is a PEM file"))
                return nil
            }
            return String(decoding: data, as: UTF8.self)
        }
        guard let certificateText = read(certificateFile), let keyText = read(keyFile) else { return nil }
        // Each file is read on its own, so a failure names the file it comes from.
        let certificate: Certificate
        do {
            certificate = try Certificate(pem: certificateText)
        } catch {
            io.report(
                Diagnostic(
                    .tlsUnusable, file: certificateFile, message: error.message,
                    help: "--tls-cert takes a PEM certificate chain (leaf first), --tls-key its PEM key"))
            return nil
        }
        let key: PrivateKey
        do {
            key = try PrivateKey(pem: keyText)
        } catch {
            io.report(
                Diagnostic(
                    .tlsUnusable, file: keyFile, message: error.message,
                    help: PrivateKey.isEncrypted(pem: keyText)
                        ? "openssl pkey -in \(keyFile) -out plain-key.pem asks for the passphrase once and writes "
                            + "the key unencrypted; pass --tls-key plain-key.pem"
                        : "--tls-key takes the unencrypted PEM private key of --tls-cert"))
            return nil
        }
        guard certificate.matches(key) else {
            io.report(
                Diagnostic(
                    .tlsUnusable, file: keyFile, message: "this key does not belong to \(certificateFile)",
                    help: "give the key the certificate was made for"))
            return nil
        }
        return ListenerTLS(
            identity: TLSIdentity(keyPEM: keyText, certificatePEM: certificateText), extraPort: extraPort,
            about: "certificate \(certificateFile) (\(certificate.subject))")
    }

    /// The names a listener on `host` is reached by: the address itself (every local address for a wildcard, and
    /// the machine's name), and always localhost, 127.0.0.1 and ::1.
    static func listenNames(_ host: String) -> [ServerName] {
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
    static func localAddresses() -> [String] {
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

/// The servers of a serving command: plain HTTP, HTTPS, or both on two ports; the first is the one announced.
struct Listeners {
    let servers: [HTTPServer]
    let tls: ListenerTLS

    /// Starts the listeners `tls` asks for on `host`; `handler` gets the scheme each one speaks.
    static func start(
        host: String, port: UInt16, limits: HTTPServerLimits = .default, tls: ListenerTLS,
        handler: (_ scheme: String) -> any HTTPHandler
    ) throws -> Listeners {
        var servers: [HTTPServer] = []
        do {
            if let identity = tls.identity {
                servers.append(
                    try HTTPServer(
                        handler: handler("https"), host: host, port: tls.extraPort ?? port, limits: limits,
                        tls: identity))
            }
            if tls.identity == nil || tls.extraPort != nil {
                servers.append(try HTTPServer(handler: handler("http"), host: host, port: port, limits: limits))
            }
            for server in servers { try server.start() }
        } catch {
            for server in servers { server.stop() }
            throw error
        }
        return Listeners(servers: servers, tls: tls)
    }

    /// The announced listener's base URL (the HTTPS one when there are two).
    var baseURL: String { servers[0].baseURL }

    func stop() { for server in servers { server.stop() } }

    /// Lines that say how the listeners are reached beyond ``baseURL``: the certificate, the plain-HTTP one.
    func announce(_ io: CommandIO) {
        if !tls.about.isEmpty { io.out.write("TLS: \(tls.about)\n") }
        for server in servers.dropFirst() { io.out.write("Also plain HTTP on \(server.baseURL)\n") }
        let scheme = tls.identity == nil ? "http" : "https"
        for note in DeviceAddresses.notes(host: servers[0].host, port: servers[0].boundPort, scheme: scheme) {
            io.out.write(note + "\n")
        }
    }
}

extension Arguments {
    /// The listener's limits: the server's defaults, with `--max-head` when given (response heads may then be twice
    /// as large, and never less than the default room).
    func serverLimits() throws(UsageError) -> HTTPServerLimits {
        var limits = HTTPServerLimits.default
        if let size = try size("--max-head") {
            limits.maxHeaderBytes = size
            limits.maxResponseHeadBytes = max(limits.maxResponseHeadBytes, 2 * size)
        }
        return limits
    }
}
