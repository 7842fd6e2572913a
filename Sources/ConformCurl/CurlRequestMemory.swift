internal import CCurl
import Foundation

/// The memory libcurl reads a request from while its transfer runs: the header lines, one after another and each
/// ended by a NUL, the list nodes that point into them, and a copy of the body.
///
/// An easy handle owns one and each of its exchanges writes over the last one's, so an exchange allocates none of
/// it (a list built with `curl_slist_append` costs two allocations a line, and the body's copy one more). It grows
/// when an exchange needs more and is freed with its handle. libcurl only reads a header list it is given; the
/// nodes are `curl_slist`s, the type it reads.
final class CurlRequestMemory {
    private var text = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var used = 0
    /// Where each line written since ``beginLines()`` starts in `text` (offsets: `text` may move as it grows).
    private var starts: [Int] = []
    private var nodes = UnsafeMutableBufferPointer<curl_slist>(start: nil, count: 0)
    private var bodyCopy = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    init() {}

    deinit {
        text.deallocate()
        nodes.deallocate()
        bodyCopy.deallocate()
    }

    /// Forgets the lines of the last exchange.
    func beginLines() {
        used = 0
        starts.removeAll(keepingCapacity: true)
    }

    /// Writes one line, made of up to three parts, for ``list()``.
    func appendLine(_ first: String, _ second: String = "", _ third: String = "") {
        starts.append(used)
        write(first)
        write(second)
        write(third)
        reserve(1)
        text[used] = 0
        used += 1
    }

    /// The lines written since ``beginLines()`` as a list libcurl reads, valid until the next ``beginLines()``;
    /// `nil` when there is none.
    func list() -> UnsafeMutablePointer<curl_slist>? {
        guard !starts.isEmpty, let base = text.baseAddress else { return nil }
        if nodes.count < starts.count {
            nodes.deallocate()
            nodes = .allocate(capacity: max(starts.count, 2 * nodes.count, 16))
        }
        guard let first = nodes.baseAddress else { return nil }
        for (index, start) in starts.enumerated() {
            let next = index + 1 < starts.count ? first + index + 1 : nil
            (first + index).initialize(
                to: curl_slist(data: (base + start).assumingMemoryBound(to: CChar.self), next: next))
        }
        return first
    }

    /// A copy of `body`, valid until the next call.
    func body(_ body: Data) -> UnsafeRawBufferPointer {
        if bodyCopy.count < body.count {
            bodyCopy.deallocate()
            bodyCopy = .allocate(byteCount: max(body.count, 2 * bodyCopy.count, 1024), alignment: 1)
        }
        let count = body.count
        guard count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        let target = bodyCopy
        body.withUnsafeBytes { bytes in
            if let source = bytes.baseAddress, let base = target.baseAddress {
                base.copyMemory(from: source, byteCount: count)
            }
        }
        return UnsafeRawBufferPointer(start: bodyCopy.baseAddress, count: count)
    }

    /// Appends a string's bytes, copied at once from its contiguous storage (native strings have one).
    private func write(_ part: String) {
        guard !part.isEmpty else { return }
        var part = part
        part.withUTF8 { bytes in
            reserve(bytes.count)
            if let source = bytes.baseAddress, let base = text.baseAddress {
                (base + used).copyMemory(from: source, byteCount: bytes.count)
            }
            used += bytes.count
        }
    }

    /// Makes room for `count` more bytes of text, keeping what is written.
    private func reserve(_ count: Int) {
        guard used + count > text.count else { return }
        let grown = UnsafeMutableRawBufferPointer.allocate(
            byteCount: max(used + count, 2 * text.count, 1024), alignment: 1)
        if used > 0, let source = text.baseAddress, let target = grown.baseAddress {
            target.copyMemory(from: source, byteCount: used)
        }
        text.deallocate()
        text = grown
    }
}
