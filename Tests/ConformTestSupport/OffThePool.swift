import Foundation

/// Runs blocking work (a child process, a polling loop) on its own thread, so it never holds one of the few
/// threads Swift concurrency shares between all tests running in parallel.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
