import ConformCore
import Foundation

/// HTTP/1.1 messages read incrementally from one direction of a TCP stream: keep-alive and pipelined messages,
/// `Content-Length`, chunked and read-until-close bodies, each message with the capture times of its first and last
/// byte. A stream that is not HTTP/1.x, or breaks its framing, fails and is read no further: nothing is guessed.
struct HTTPStreamParser {
    enum Role { case request, response }

    /// One message: its start line split, its header fields in order, its body with the transfer coding undone.
    struct Message {
        var startLine: [Substring]
        var headerFields: HTTPFields
        var body: [UInt8]
        var firstByteAt: Double
        var lastByteAt: Double
        /// A 1xx answer that another response follows (`100 Continue`).
        var isInterim = false
    }

    enum Step {
        case message(Message)
        case needMore
        /// The stream broke HTTP/1.1's framing, or (`overLimit`) a message passed a ``CaptureLimits`` limit.
        case failed(String, overLimit: Bool)
        /// `101 Switching Protocols` or a successful `CONNECT`: what follows is not HTTP/1.1.
        case upgraded(Message)
    }

    private enum State {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case untilClose
        case failed(String)
    }

    let role: Role
    let limits: CaptureLimits
    private var buffer: [UInt8] = []
    private var read = 0
    /// The stream offset of `buffer[0]`.
    private var base = 0
    /// Capture times by stream offset: each entry is the offset just past a delivered chunk and that chunk's time.
    private var marks: [(end: Int, time: Double)] = []
    private var state = State.head
    private var current: Message?
    /// How far the search for the end of the head that starts at stream offset `start` got, so bytes that arrive a
    /// few at a time are each looked at once: `scanned` is the offset searched up to, `lineStart` where the line
    /// being searched began, `lines` how many non-empty lines came before it.
    private var headScan = (start: -1, scanned: 0, lineStart: 0, lines: 0)
    /// Likewise for the line feed ending a chunk-size or trailer line that starts at stream offset `start`.
    private var lineScan = (start: -1, scanned: 0)

    init(role: Role, limits: CaptureLimits) {
        self.role = role
        self.limits = limits
    }

    /// Bytes held: the unread part of the stream and the body of the message being read.
    var bufferedBytes: Int { buffer.count - read + (current?.body.count ?? 0) }

    /// Whether nothing of a message has arrived past the last complete one.
    var isIdle: Bool {
        if case .head = state { return read == buffer.count }
        return false
    }

    /// The bytes not read yet, with the capture time of each piece, when they begin where a message begins (no
    /// message is half-read); `nil` when one is.
    func unreadAtMessageStart() -> [(bytes: ArraySlice<UInt8>, time: Double)]? {
        guard case .head = state else { return nil }
        var out: [(bytes: ArraySlice<UInt8>, time: Double)] = []
        var from = read
        for mark in marks where mark.end - base > from {
            let end = min(mark.end - base, buffer.count)
            out.append((buffer[from..<end], mark.time))
            from = end
        }
        return out
    }

    /// Whether what was not read yet is nothing, or begins as a request line would, as far as it goes (a message
    /// already begun has a head that parsed).
    var unreadCouldBeginARequest: Bool {
        guard case .head = state else { return true }
        var rest = buffer[read...]
        while let first = rest.first, first == 0x0D || first == 0x0A { rest = rest.dropFirst() }
        return ResyncScanner.couldBeginRequestLine(rest.prefix(limits.maxHeadBytes))
    }

    /// Appends bytes that arrived in order at capture time `time`.
    mutating func feed(_ bytes: ArraySlice<UInt8>, at time: Double) {
        guard !bytes.isEmpty else { return }
        if read > 65536, read * 2 > buffer.count {
            buffer.removeFirst(read)
            base += read
            read = 0
        }
        buffer.append(contentsOf: bytes)
        marks.append((base + buffer.count, time))
    }

    private func time(at index: Int) -> Double {
        let offset = base + index
        for mark in marks where mark.end > offset { return mark.time }
        return marks.last?.time ?? 0
    }

    private mutating func forgetMarks() {
        let offset = base + read
        if let keep = marks.firstIndex(where: { $0.end > offset }) {
            if keep > 0 { marks.removeFirst(keep) }
        } else if marks.count > 1 {
            marks.removeFirst(marks.count - 1)
        }
    }

    /// Reads on; for a response, `answersHead` says whether its request was `HEAD` (no body whatever it says) and
    /// `answersConnect` whether it was `CONNECT`.
    mutating func next(answersHead: Bool = false, answersConnect: Bool = false) -> Step {
        while true {
            switch state {
            case .failed(let reason): return .failed(reason, overLimit: failedOverLimit)
            case .head:
                guard read < buffer.count else { return .needMore }
                guard headIsComplete(), let (lines, end) = headLines() else {
                    if buffer.count - read > limits.maxHeadBytes {
                        return fail("a message head longer than \(limits.maxHeadBytes) bytes")
                    }
                    return .needMore
                }
                if end - read > limits.maxHeadBytes {
                    return fail("a message head longer than \(limits.maxHeadBytes) bytes")
                }
                let first = time(at: read)
                read = end
                switch startMessage(lines, firstByteAt: first, answersHead: answersHead, answersConnect: answersConnect)
                {
                case .failure(let failure): return fail(failure.reason)
                case .success(let upgraded):
                    if upgraded, var message = current {
                        message.lastByteAt = time(at: max(read - 1, 0))
                        current = nil
                        state = .failed("the stream switched protocols")
                        return .upgraded(message)
                    }
                }
            case .fixed(let remaining):
                if remaining == 0 { return complete() }
                let available = buffer.count - read
                guard available > 0 else { return .needMore }
                let take = min(available, remaining)
                guard (current?.body.count ?? 0) + take <= limits.maxMessageBytes else {
                    return fail("a body longer than \(limits.maxMessageBytes) bytes")
                }
                let slice = buffer[read..<(read + take)]
                current?.body.append(contentsOf: slice)
                read += take
                state = .fixed(remaining: remaining - take)
            case .chunkSize, .trailers:
                guard let lineEnd = lineEndFromRead() else {
                    if buffer.count - read > limits.maxHeadBytes { return fail("a chunk line too long") }
                    return .needMore
                }
                let line = text(read, lineEnd.content)
                read = lineEnd.next
                if case .trailers = state {
                    if line.isEmpty { return complete() }
                    continue
                }
                let sizeText = line.split(separator: ";", maxSplits: 1).first.map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                guard let sizeText, !sizeText.isEmpty, sizeText.count <= 15,
                    sizeText.allSatisfy(\.isHexDigit), let size = Int(sizeText, radix: 16)
                else {
                    return fail("a chunk size that is not hexadecimal")
                }
                if size == 0 {
                    state = .trailers
                } else {
                    guard (current?.body.count ?? 0) + size <= limits.maxMessageBytes else {
                        return fail("a body longer than \(limits.maxMessageBytes) bytes")
                    }
                    state = .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                let available = buffer.count - read
                guard available > 0 else { return .needMore }
                let take = min(available, remaining)
                let slice = buffer[read..<(read + take)]
                current?.body.append(contentsOf: slice)
                read += take
                state = remaining == take ? .chunkDataEnd : .chunkData(remaining: remaining - take)
            case .chunkDataEnd:
                guard let lineEnd = lineEnd(from: read) else {
                    return buffer.count - read >= 2 ? fail("chunk data not followed by CRLF") : .needMore
                }
                guard lineEnd.content == read else { return fail("chunk data longer than its size") }
                read = lineEnd.next
                state = .chunkSize
            case .untilClose:
                let available = buffer.count - read
                guard available > 0 else { return .needMore }
                guard (current?.body.count ?? 0) + available <= limits.maxMessageBytes else {
                    return fail("a body longer than \(limits.maxMessageBytes) bytes")
                }
                let rest = buffer[read...]
                current?.body.append(contentsOf: rest)
                read = buffer.count
                let last = time(at: read - 1)
                current?.lastByteAt = last
                forgetMarks()
                return .needMore
            }
        }
    }

    /// The direction ended (FIN): a body read until close is complete; anything else half-read is cut off.
    mutating func finish() -> (message: Message?, cutOff: Bool) {
        switch state {
        case .untilClose:
            let message = current
            current = nil
            state = .head
            return (message, false)
        case .head: return (nil, read < buffer.count)
        case .failed: return (nil, false)
        default: return (nil, true)
        }
    }

    /// Whether a message had started but not completed.
    var hasPartialMessage: Bool {
        switch state {
        case .head: return read < buffer.count
        case .failed: return false
        default: return true
        }
    }

    /// Whether the failure was a limit rather than bytes that are no HTTP/1.1.
    private var failedOverLimit = false

    private mutating func fail(_ reason: String) -> Step {
        failedOverLimit =
            reason.contains("longer than") || reason.contains("over the limit")
            || reason.contains("more than")
        state = .failed(reason)
        buffer = []
        read = 0
        current = nil
        marks = []
        return .failed(reason, overLimit: failedOverLimit)
    }

    private mutating func complete() -> Step {
        guard var message = current else { return fail("internal: no message") }
        message.lastByteAt = time(at: max(read - 1, 0))
        current = nil
        state = .head
        forgetMarks()
        return .message(message)
    }

    /// Whether the bytes from `read` hold a whole head (or more lines than a head may have), looking at each byte
    /// once however the bytes arrive.
    private mutating func headIsComplete() -> Bool {
        if headScan.start != base + read { headScan = (base + read, base + read, base + read, 0) }
        var position = headScan.scanned - base
        while position < buffer.count, let lf = buffer[position...].firstIndex(of: 0x0A) {
            let lineStart = headScan.lineStart - base
            let content = lf > lineStart && buffer[lf - 1] == 0x0D ? lf - 1 : lf
            headScan.lineStart = base + lf + 1
            position = lf + 1
            if content > lineStart {
                headScan.lines += 1
                if headScan.lines > limits.maxHeaderFields + 1 { return true }
            } else if headScan.lines > 0 {
                return true
            }
        }
        headScan.scanned = base + buffer.count
        return false
    }

    /// ``lineEnd(from:)`` at `read`, looking at each byte once however the bytes arrive.
    private mutating func lineEndFromRead() -> (content: Int, next: Int)? {
        if lineScan.start != base + read { lineScan = (base + read, base + read) }
        guard let found = lineEnd(from: max(read, lineScan.scanned - base)) else {
            lineScan.scanned = base + buffer.count
            return nil
        }
        // The line ends at the first line feed; only a CR just before it is part of the ending.
        let content = found.next - 1 > read && buffer[found.next - 2] == 0x0D ? found.next - 2 : found.next - 1
        return (content, found.next)
    }

    /// The lines of a complete head starting at `read` (without the empty line) and where the head ends.
    private func headLines() -> ([String], Int)? {
        var lines: [String] = []
        var position = read
        // Empty lines before a request line are allowed (RFC 9112 2.2).
        while true {
            guard let end = lineEnd(from: position) else { return nil }
            if end.content == position {
                if lines.isEmpty {
                    position = end.next
                    continue
                }
                return (lines, end.next)
            }
            lines.append(text(position, end.content))
            if lines.count > limits.maxHeaderFields + 1 { return (lines, end.next) }
            position = end.next
        }
    }

    private func lineEnd(from position: Int) -> (content: Int, next: Int)? {
        guard position < buffer.count,
            let lf = buffer[position...].firstIndex(of: 0x0A)
        else { return nil }
        let content = lf > position && buffer[lf - 1] == 0x0D ? lf - 1 : lf
        return (content, lf + 1)
    }

    private func text(_ from: Int, _ to: Int) -> String {
        String(decoding: buffer[from..<to], as: UTF8.self)
    }

    /// Reads a start line and header fields into ``current`` and sets how its body is framed; `true` when the
    /// message switches the stream to another protocol.
    private mutating func startMessage(
        _ lines: [String], firstByteAt: Double, answersHead: Bool, answersConnect: Bool
    ) -> Result<Bool, Failure> {
        let read = Self.head(
            lines, role: role, limits: limits, firstByteAt: firstByteAt, answersHead: answersHead,
            answersConnect: answersConnect)
        switch read {
        case .failure(let failure): return .failure(failure)
        case .success(let (message, framing)):
            current = message
            switch framing {
            case .fixed(let remaining): state = .fixed(remaining: remaining)
            case .chunked: state = .chunkSize
            case .untilClose: state = .untilClose
            case .switchesProtocol: return .success(true)
            }
            return .success(false)
        }
    }
}
