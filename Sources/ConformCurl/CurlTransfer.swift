internal import CCurl
import ConformCore
import Foundation

/// One exchange while libcurl runs it: the easy handle and everything curl points into (the response sink here; the
/// header list, the request body's copy and the error buffer in the handle's memory) live until the transfer ends,
/// and the waiting task is resumed from here.
/// Prepared on the sending thread, then touched by the loop thread only.
final class CurlTransfer: @unchecked Sendable {
    let handle: EasyHandle
    let method: String
    let url: String
    let sink: ResponseSink
    /// The request body, copied into the handle's request memory: curl reads it while the transfer runs.
    let body: UnsafeRawBufferPointer
    /// The header lines, in the handle's request memory.
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// The task waiting for the outcome; set once, before the transfer starts, and resumed once.
    var continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>?

    init(handle: EasyHandle, method: String, url: String, sink: ResponseSink, body: Data) {
        self.handle = handle
        self.method = method
        self.url = url
        self.sink = sink
        self.body = handle.request.body(body)
    }

    var cancelled: CancelFlag { sink.cancelled }

    /// Hands the outcome to the waiting task.
    func complete(_ outcome: Result<HTTPResponse, TransportError>) {
        let waiting = continuation
        continuation = nil
        waiting?.resume(returning: outcome)
    }
}
