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
/// must not stop with a connection still suspended.
final class DeferredAnswers: Sendable {
    private let count = Atomic<Int>(0)

    var outstanding: Int { count.load(ordering: .acquiring) }

    /// Suspends `connection` and starts `handler` on `request`; the answer resumes the connection, whose next call
    /// of the access handler finds it in `pending`. The request counts as outstanding until ``finished()``.
    func begin(
        _ handler: any DeferredHTTPHandler, _ request: HTTPRequest, on connection: OpaquePointer,
        into pending: PendingAnswer
    ) {
        count.add(1, ordering: .relaxed)
        MHD_suspend_connection(connection)
        let suspended = SuspendedConnection(pointer: connection)
        handler.begin(request) { [self] response in
            pending.put(response)
            MHD_resume_connection(suspended.pointer)
        }
    }

    /// A deferred request ended (its answer sent, or its connection gone): libmicrohttpd is done with it.
    func finished() { count.subtract(1, ordering: .releasing) }

    /// Waits until every deferred request has ended (each handler bounds its own time).
    func drain() {
        while outstanding > 0 { usleep(1000) }
    }
}
