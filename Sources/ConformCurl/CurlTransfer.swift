internal import CCurl
import ConformCore
import Foundation

/// One exchange while libcurl runs it: the easy handle and everything curl points into (header list, request body,
/// response sink; the error buffer is the handle's) live here until the transfer ends, and the waiting task is
/// resumed from here.
/// Prepared on the sending thread, then touched by the loop thread only.
final class CurlTransfer: @unchecked Sendable {
    let handle: EasyHandle
    let method: String
    let url: String
    let sink: ResponseSink
    /// The request body, copied: curl reads it while the transfer runs.
    let body: UnsafeMutableRawBufferPointer
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// The task waiting for the outcome; set once, before the transfer starts, and resumed once.
    var continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>?

    init(handle: EasyHandle, method: String, url: String, sink: ResponseSink, body: Data) {
        self.handle = handle
        self.method = method
        self.url = url
        self.sink = sink
        self.body = UnsafeMutableRawBufferPointer.allocate(byteCount: body.count, alignment: 1)
        let copy = self.body
        body.withUnsafeBytes { bytes in
            if let source = bytes.baseAddress, let target = copy.baseAddress {
                target.copyMemory(from: source, byteCount: bytes.count)
            }
        }
    }

    deinit {
        curl_slist_free_all(headerList)
        body.deallocate()
    }

    var cancelled: CancelFlag { sink.cancelled }

    /// Hands the outcome to the waiting task.
    func complete(_ outcome: Result<HTTPResponse, TransportError>) {
        let waiting = continuation
        continuation = nil
        waiting?.resume(returning: outcome)
    }
}
