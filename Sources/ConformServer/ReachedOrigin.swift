import ConformCore
import Synchronization

/// The origin a client reached on Conform's own listeners (`scheme://host[:port]`), for an implementation that runs
/// in-process behind them (`serve --check`'s reference): it then announces an origin the client can reach again (a
/// base URL), never an internal one.
///
/// The origin is the configured public origin, else the scheme of the listener whose port the `Host` header names
/// (``listening(_:)``) with that `Host`; a `Host` that is no plain authority (see ``OriginHandler``) gives none.
/// It comes from the client: only an in-process implementation may be sent to it, never a network transport.
public final class ReachedOrigin: Sendable {
    /// `scheme://host[:port]` every request is said to come to, or `nil`.
    public let publicOrigin: String?
    /// The scheme of each listening port, and of a `Host` that names no port.
    private let schemes = Mutex<(byPort: [UInt16: String], first: String)>(([:], "http"))

    public init(publicOrigin: String? = nil) {
        self.publicOrigin = publicOrigin
    }

    /// Tells the listeners' ports and schemes, the announced one first.
    public func listening(_ listeners: [(port: UInt16, scheme: String)]) {
        schemes.withLock { schemes in
            schemes.first = listeners.first?.scheme ?? "http"
            schemes.byPort = Dictionary(listeners.map { ($0.port, $0.scheme) }) { first, _ in first }
        }
    }

    /// The origin `request` (as a listener received it) was sent to, or `nil` when it cannot be told.
    public func origin(of request: HTTPRequest) -> String? {
        if let publicOrigin { return publicOrigin }
        guard let host = request.headerFields["Host"], OriginHandler.isAuthority(host) else { return nil }
        let port = host.hasSuffix("]") ? nil : host.split(separator: ":").last.flatMap { UInt16($0) }
        let scheme = schemes.withLock { schemes in port.flatMap { schemes.byPort[$0] } ?? schemes.first }
        return "\(scheme)://\(host)"
    }
}
