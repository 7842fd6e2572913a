internal import CMicroHTTPD
import ConformCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A handler that answers later, from any thread, rather than on the server thread that received the request.
///
/// The server suspends the connection meanwhile (libmicrohttpd's suspend and resume), so a request waiting on its
/// upstream holds no thread, and a few event-loop threads serve every connection. ``AsyncHandlerAdapter`` is one.
public protocol DeferredHTTPHandler: HTTPHandler {
    /// Starts answering `request`; `answer` must be called exactly once, from any thread.
    func begin(_ request: HTTPRequest, answer: @escaping @Sendable (HTTPResponse) -> Void)
}

/// The answer of a request handled by a ``DeferredHTTPHandler``, handed from the thread that made it to the
/// server thread that sends it once the connection is resumed.
final class PendingAnswer: Sendable {
    private let response = Mutex<HTTPResponse?>(nil)

    func put(_ answer: HTTPResponse) { response.withLock { $0 = answer } }
    func take() -> HTTPResponse? { response.withLock { $0.take() } }
}

/// The connection a deferred answer resumes; libmicrohttpd keeps a suspended connection until it is resumed.
private struct SuspendedConnection: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// How many connections wait for a deferred answer: ``HTTPServer/stop()`` waits for them, since libmicrohttpd
/// must not stop with a connection still suspended (it aborts the process). Once a stop has begun, no connection is
/// suspended any more: a request that arrives between the wait and the daemon's end has its connection closed
/// unanswered, as a server that is down closes it.
final class DeferredAnswers: Sendable {
    private struct State {
        var outstanding = 0
        var closing = false
    }
    private let state = Mutex(State())
    /// For daemons served by event loops: how to have the daemon a connection belongs to run again once the
    /// connection is resumed. A daemon without a thread of its own opens no inter-thread channel, so nothing its epoll
    /// descriptor reports tells the loop of a resume. Empty for a server with threads of its own.
    private let wakers = Mutex<[(daemon: Int, wake: @Sendable () -> Void)]>([])

    /// Sets what wakes each joined daemon (by its address; ``HTTPServer``'s launch), or clears it.
    func setWakers(_ list: [(daemon: Int, wake: @Sendable () -> Void)]) { wakers.withLock { $0 = list } }

    var outstanding: Int { state.withLock { $0.outstanding } }

    /// Suspends `connection` and starts `handler` on `request`; the answer resumes the connection, whose next call
    /// of the access handler finds it in `pending`. The request counts as outstanding until ``finished()``.
    /// `false`, with nothing suspended or started, once the server is stopping: the caller answers at once.
    func begin(
        _ handler: any DeferredHTTPHandler, _ request: HTTPRequest, on connection: OpaquePointer,
        into pending: PendingAnswer
    ) -> Bool {
        let admitted = state.withLock { state in
            guard !state.closing else { return false }
            state.outstanding += 1
            return true
        }
        guard admitted else { return false }
        let wake = waker(of: connection)
        MHD_suspend_connection(connection)
        let suspended = SuspendedConnection(pointer: connection)
        handler.begin(request) { response in
            pending.put(response)
            MHD_resume_connection(suspended.pointer)
            wake?()
        }
        return true
    }

    private func waker(of connection: OpaquePointer) -> (@Sendable () -> Void)? {
        wakers.withLock { list in
            guard !list.isEmpty, let daemon = conform_mhd_connection_daemon(connection) else { return nil }
            return list.first { $0.daemon == Int(bitPattern: daemon) }?.wake
        }
    }

    /// A deferred request ended (its answer sent, or its connection gone): libmicrohttpd is done with it.
    func finished() { state.withLock { $0.outstanding -= 1 } }

    /// Suspends no connection from now on, then waits until every deferred request has ended (each handler bounds
    /// its own time).
    func drain() {
        state.withLock { $0.closing = true }
        while outstanding > 0 { usleep(1000) }
    }

    /// Suspends connections again: the server listens anew after a pause.
    func reopen() { state.withLock { $0.closing = false } }
}
