import ConformCore
import ConformDiagnostics
import ConformServer

/// The servers of a serving command (`serve`, `mock`, `record`): plain HTTP, HTTPS, or both on two ports; the first
/// is the one announced.
public struct Listeners: Sendable {
    public let servers: [HTTPServer]
    public let tls: ListenerTLS

    /// Starts the listeners `tls` asks for on `host`; `handler` gets the scheme each one speaks. Nothing is left
    /// listening when one of them cannot start. A plain-HTTP listener joins `loops` (a transport's
    /// ``Transport/ioLoops``) when its handler answers later, as ``HTTPServer`` says.
    public static func start(
        host: String, port: UInt16, limits: HTTPServerLimits = .default, tls: ListenerTLS,
        loops: [any IOLoop] = [], handler: (_ scheme: String) -> any HTTPHandler
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
                servers.append(
                    try HTTPServer(handler: handler("http"), host: host, port: port, limits: limits, loops: loops))
            }
            for server in servers { try server.start() }
        } catch {
            for server in servers { server.stop() }
            throw error
        }
        return Listeners(servers: servers, tls: tls)
    }

    /// Why a serving command stops before it serves: it cannot listen on `host`:`port`; `option` is the command's
    /// option that picks the port.
    public static func cannotListen(host: String, port: UInt16, option: String, _ error: any Error) -> Diagnostic {
        Diagnostic(
            .cliCannotListen, message: "cannot listen on \(host):\(port): \(error)",
            help: "pick a free port with \(option), or 0 for any")
    }

    /// The announced listener's base URL (the HTTPS one when there are two).
    public var baseURL: String { servers[0].baseURL }

    public func stop() { for server in servers { server.stop() } }

    /// Lines that say how the listeners are reached beyond ``baseURL``: the certificate, the plain-HTTP one, and
    /// for a listener on every interface the addresses a device uses and the risk.
    public var announcement: [String] {
        var lines: [String] = []
        if !tls.about.isEmpty { lines.append("TLS: \(tls.about)") }
        for server in servers.dropFirst() { lines.append("Also plain HTTP on \(server.baseURL)") }
        let scheme = tls.identity == nil ? "http" : "https"
        return lines + DeviceAddresses.notes(host: servers[0].host, port: servers[0].boundPort, scheme: scheme)
    }
}

/// What a listener on every interface tells the user: the addresses a phone on the same network uses, and the risk.
public enum DeviceAddresses {
    /// Nothing for a listener on one address; for `0.0.0.0` or `::`, one line per non-loopback address and a warning.
    public static func notes(host: String, port: UInt16, scheme: String) -> [String] {
        guard ["0.0.0.0", "::", "[::]"].contains(host) else { return [] }
        let addresses = ListenerTLS.localAddresses().filter { !$0.hasPrefix("127.") && $0 != "::1" }
        var notes = [
            "Listening on every interface: anyone who can reach this machine can use it, and the credentials the app "
                + "sends pass through it; stop it when you are done (docs/devices.md)"
        ]
        if addresses.isEmpty {
            notes.append(
                "This machine has no address but loopback: a device over USB can use adb reverse tcp:\(port) tcp:\(port)"
            )
        }
        for address in addresses {
            let shown = address.contains(":") ? "[\(address)]" : address
            notes.append("From a device on this network: \(scheme)://\(shown):\(port)")
        }
        return notes
    }
}
