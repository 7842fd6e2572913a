import ConformCore
import ConformServer
import Synchronization

/// The listeners an `offline` client fault (``ClientFault/Kind/offline``) takes off the network: each closes its
/// socket and its connections for the window and listens again on the same port after it
/// (``HTTPServer/pause(for:offline:resumed:)``), so an app meets refused connections as it would with a server that is
/// down.
///
/// A command attaches the listeners it starts; with none attached (a forward proxy's tunnels), the calls in the window
/// still get their connections closed without an answer.
public final class OfflineSwitch: Sendable {
    private let servers = Mutex<[HTTPServer]>([])
    /// Told, for each listener, when a window ends: that it listens again, or why it could not.
    private let notice: @Sendable (String) -> Void

    public init(notice: @escaping @Sendable (String) -> Void = { _ in }) {
        self.notice = notice
    }

    /// Adds listeners a window closes.
    public func attach(_ listeners: [HTTPServer]) {
        servers.withLock { $0 += listeners }
    }

    /// Closes every attached listener for `window`.
    func pause(for window: Duration) {
        let notice = self.notice
        for server in servers.withLock({ $0 }) {
            let port = server.boundPort
            server.pause(
                for: window,
                resumed: { end in
                    switch end {
                    case .listening:
                        notice("offline window of \(ClientFault.seconds(window)) over: listening again on port \(port)")
                    case .failed(let problem):
                        notice("offline window over, but port \(port) could not listen again: \(problem)")
                    case .superseded:
                        break
                    }
                })
        }
    }
}
