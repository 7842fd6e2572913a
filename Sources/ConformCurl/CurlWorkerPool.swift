import Foundation

/// A small set of long-lived threads that run blocking libcurl transfers off the Swift concurrency pool.
final class CurlWorkerPool: @unchecked Sendable {
    // All fields are guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var idle = 0
    private var threads = 0
    private var stopping = false
    private let maxThreads: Int

    init(maxThreads: Int) { self.maxThreads = maxThreads }

    /// Runs `job` on a worker, starting a new thread when all are busy and the limit allows.
    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        if idle == 0 && threads < maxThreads {
            threads += 1
            let thread = Thread { [self] in run() }
            thread.name = "conform-curl-\(threads)"
            thread.stackSize = 512 * 1024
            thread.start()
        }
        condition.signal()
        condition.unlock()
    }

    /// Lets idle workers exit once queued jobs are done.
    func shutdown() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while head == jobs.count && !stopping {
                idle += 1
                condition.wait()
                idle -= 1
            }
            if head == jobs.count {
                threads -= 1
                condition.unlock()
                return
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            condition.unlock()
            job()
        }
    }
}
