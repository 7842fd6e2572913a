/// An I/O thread that other I/O can join: a transport's event loop that also waits on a server's descriptor and runs
/// the server's work when it is ready, so that a request, the exchange it starts and its answer all stay on one
/// thread.
///
/// `CurlTransport` (`ConformCurl`) offers its loops (``Transport/ioLoops``); `HTTPServer` (`ConformServer`) joins
/// them with one daemon each.
public protocol IOLoop: AnyObject, Sendable {
    /// Adds `source` to the loop: from the loop's next turn, ``IOLoopSource/run()`` is called on the loop's thread
    /// whenever the source's descriptor is readable or the wait it asked for is over.
    func attach(_ source: any IOLoopSource)

    /// Removes `source`; returns once the loop will never call it again (at once when the loop has ended). Not to be
    /// called from the loop's own thread.
    func detach(_ source: any IOLoopSource)

    /// Has the loop run `source` on its next turn, whatever its descriptor says: for work that another thread (or
    /// the source's own callbacks) made ready without the descriptor knowing. From any thread.
    func wake(_ source: any IOLoopSource)
}

/// Work an ``IOLoop`` drives: a descriptor to wait on, and what to do when it is ready.
public protocol IOLoopSource: AnyObject, Sendable {
    /// The descriptor the loop waits on for reading (an epoll descriptor, a socket).
    var descriptor: Int32 { get }

    /// Does the work that is ready, on the loop's thread; returns in how many milliseconds the source wants to run
    /// again even if its descriptor stays quiet, or `nil` when only its descriptor matters.
    func run() -> Int?
}
