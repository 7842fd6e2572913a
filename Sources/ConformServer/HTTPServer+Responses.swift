internal import CMicroHTTPD
import ConformCore
import Foundation

// How an answer goes to libmicrohttpd: whole, or chunked when the handler asks for it.

/// Header names libmicrohttpd computes itself; passing them through would be refused or duplicated.
private let managedHeaders: Set<String> = ["content-length", "transfer-encoding"]

/// Queues `response`; one with `Transfer-Encoding: chunked` and no `Content-Length` is sent chunked; one that
/// ``HTTPResponse/dropsConnection`` closes the connection instead.
func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    // A handler that closes the connection without answering: libmicrohttpd closes it on MHD_NO.
    if response.dropsConnection { return .NO }
    let status = (100...999).contains(response.status.code) ? response.status.code : 500
    let made: OpaquePointer?
    if wantsChunks(response) {
        let body = Unmanaged.passRetained(ChunkedBody(response.body))
        made = conform_mhd_create_chunked_response(
            4096, conformServerReadChunk, body.toOpaque(), conformServerReleaseChunks)
        if made == nil { body.release() }
    } else {
        made = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }
    for field in response.headerFields where !managedHeaders.contains(field.name.lowercased()) {
        _ = MHD_add_response_header(made, field.name, field.value)
    }
    return MHD_queue_response(connection, UInt32(status), made)
}

/// Whether the handler asked for a chunked body: `Transfer-Encoding: chunked` and no `Content-Length`.
private func wantsChunks(_ response: HTTPResponse) -> Bool {
    !response.headerFields.contains("Content-Length")
        && response.headerFields.values(for: "Transfer-Encoding").contains { $0.lowercased().contains("chunked") }
}

/// The body of a chunked response, kept alive until libmicrohttpd releases it.
final class ChunkedBody: Sendable {
    /// The most bytes one chunk carries, so larger bodies arrive in several chunks.
    static let chunkSize = 1024
    let bytes: Data

    init(_ bytes: Data) { self.bytes = bytes }
}

/// Copies the next chunk of a ``ChunkedBody`` into libmicrohttpd's buffer.
func conformServerReadChunk(
    _ cls: UnsafeMutableRawPointer?, _ position: UInt64, _ buffer: UnsafeMutablePointer<CChar>?, _ max: Int
) -> Int {
    guard let cls, let buffer else { return conform_mhd_end_of_stream() }
    let body = Unmanaged<ChunkedBody>.fromOpaque(cls).takeUnretainedValue()
    let start = Int(position)
    guard start < body.bytes.count else { return conform_mhd_end_of_stream() }
    let count = min(max, ChunkedBody.chunkSize, body.bytes.count - start)
    body.bytes.withUnsafeBytes { bytes in
        guard let base = bytes.baseAddress else { return }
        UnsafeMutableRawPointer(buffer).copyMemory(from: base + start, byteCount: count)
    }
    return count
}

/// Releases a ``ChunkedBody`` when libmicrohttpd is done with its response.
func conformServerReleaseChunks(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    Unmanaged<ChunkedBody>.fromOpaque(cls).release()
}
