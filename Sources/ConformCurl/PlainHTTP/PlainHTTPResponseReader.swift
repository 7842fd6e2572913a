import ConformCore

/// Reads one HTTP/1.x response from the bytes of a connection, as they arrive, into a ``ResponseSink``: the same
/// sink, and so the same header fields, status, limits and overflow texts, as a libcurl transfer.
///
/// Interim (1xx) heads are read and dropped, as libcurl drops them; the body is framed by `Transfer-Encoding: chunked`,
/// else `Content-Length`, else the connection's end; answers to `HEAD`, 1xx, 204 and 304 have none. A chunked body's
/// trailer fields join the header fields, as libcurl hands them to its header callback.
struct PlainHTTPResponseReader {
    enum Step: Equatable {
        /// The response is not complete yet.
        case more
        /// The response is complete; `extra` when bytes followed it (the connection is not used again).
        case done(extra: Bool)
        /// The bytes are not an HTTP/1.x response, or passed a limit (the sink's `overflow` then says which).
        case failed(String)
    }

    private enum State {
        case head
        case fixed(Int)
        case chunkSize
        case chunkData(Int)
        case chunkEnd
        case trailers
        case untilClose
        case complete
    }

    let sink: ResponseSink
    let answersHead: Bool
    private var state = State.head
    /// The line being read (head, chunk size, trailer) when a read ended inside it.
    private var line: [UInt8] = []
    /// Whether the next head line is a status line.
    private var atStatusLine = true
    /// `HTTP/1.0` or `HTTP/1.1`, from the last status line.
    private(set) var version = "HTTP/1.1"
    /// Whether the connection may carry another exchange after this response (its version and `Connection`).
    private(set) var keepsAlive = true
    /// Whether any byte of the response arrived.
    private(set) var started = false

    /// The longest chunk-size line read (with extensions).
    static let maxChunkLine = 4096

    init(sink: ResponseSink, answersHead: Bool) {
        self.sink = sink
        self.answersHead = answersHead
        line.reserveCapacity(256)
    }

    /// Reads `bytes`, which follow those read before.
    mutating func read(_ bytes: UnsafeRawBufferPointer) -> Step {
        if !bytes.isEmpty { started = true }
        var at = 0
        while at < bytes.count {
            switch state {
            case .head, .chunkSize, .chunkEnd, .trailers:
                guard let newline = bytes[at...].firstIndex(of: 0x0A) else {
                    line.append(contentsOf: bytes[at...])
                    if let problem = lineTooLong() { return problem }
                    return .more
                }
                let step: Step?
                if line.isEmpty {
                    step = endOfLine(UnsafeRawBufferPointer(rebasing: bytes[at...newline]))
                } else {
                    line.append(contentsOf: bytes[at...newline])
                    step = line.withUnsafeBytes { endOfLine($0) }
                    line.removeAll(keepingCapacity: true)
                }
                at = newline + 1
                if let step { return step.completing(extra: at < bytes.count) }
            case .fixed(let left):
                let taken = min(left, bytes.count - at)
                guard sink.append(bytes.baseAddress! + at, count: taken) else { return .failed("overflow") }
                at += taken
                if taken == left {
                    state = .complete
                    return .done(extra: at < bytes.count)
                }
                state = .fixed(left - taken)
            case .chunkData(let left):
                let taken = min(left, bytes.count - at)
                guard sink.append(bytes.baseAddress! + at, count: taken) else { return .failed("overflow") }
                at += taken
                state = taken == left ? .chunkEnd : .chunkData(left - taken)
            case .untilClose:
                guard sink.append(bytes.baseAddress! + at, count: bytes.count - at) else { return .failed("overflow") }
                return .more
            case .complete:
                return .done(extra: true)
            }
        }
        if case .complete = state { return .done(extra: false) }
        return .more
    }

    /// The connection ended: complete when the body runs until the end, else cut short.
    mutating func end() -> Step {
        switch state {
        case .untilClose:
            state = .complete
            return .done(extra: false)
        case .complete: return .done(extra: false)
        default: return .failed("the connection closed before the response was complete")
        }
    }

    private func lineTooLong() -> Step? {
        switch state {
        case .head, .trailers:
            guard sink.headerBytes + line.count > ResponseLimits.maxHeaderBytes else { return nil }
            sink.overflow = "the response headers are larger than the limit of \(ResponseLimits.maxHeaderBytes) bytes"
            return .failed("overflow")
        default:
            return line.count > Self.maxChunkLine
                ? .failed("a chunk-size line longer than \(Self.maxChunkLine) bytes") : nil
        }
    }

    /// A whole line (with its line feed) in the current state; a step when it ends the response or fails it.
    private mutating func endOfLine(_ text: UnsafeRawBufferPointer) -> Step? {
        var end = text.count
        while end > 0, text[end - 1] == 0x0A || text[end - 1] == 0x0D { end -= 1 }
        let content = UnsafeRawBufferPointer(rebasing: text[0..<end])
        switch state {
        case .head:
            if atStatusLine {
                guard content.starts(with: "HTTP/1.1 ".utf8) || content.starts(with: "HTTP/1.0 ".utf8) else {
                    return .failed("the reply does not start with an HTTP/1.x status line")
                }
                version = content[7] == UInt8(ascii: "0") ? "HTTP/1.0" : "HTTP/1.1"
                atStatusLine = false
            } else if content.isEmpty {
                return endOfHead()
            }
            guard sink.header(text) else { return .failed("overflow") }
            if sink.status == nil { return .failed("the status line has no status code") }
            return nil
        case .chunkSize:
            guard let size = Self.chunkSize(content) else { return .failed("a chunk size that is not hexadecimal") }
            state = size == 0 ? .trailers : .chunkData(size)
            return nil
        case .chunkEnd:
            guard content.isEmpty else { return .failed("a chunk not followed by a line end") }
            state = .chunkSize
            return nil
        case .trailers:
            if content.isEmpty {
                state = .complete
                return .done(extra: false)
            }
            guard sink.header(text) else { return .failed("overflow") }
            return nil
        default:
            return nil
        }
    }

    /// The head ended: the next head (after a 1xx) or the body's framing.
    private mutating func endOfHead() -> Step? {
        guard let status = sink.status, (100...999).contains(status) else {
            return .failed("the status line has no three-digit status code")
        }
        keepsAlive = Self.keepsAlive(version: version, sink.headers)
        if (100..<200).contains(status) && status != 101 {
            // An interim answer: the final one follows on the same connection.
            atStatusLine = true
            return nil
        }
        if status == 101 || answersHead || status == 204 || status == 304 {
            if status == 101 { keepsAlive = false }
            state = .complete
            return .done(extra: false)
        }
        let codings = sink.headers.lazy.filter { HTTPFields.sameName($0.name, "Transfer-Encoding") }
            .flatMap { $0.value.split(separator: ",") }
        if let last = codings.last {
            guard last.trimmingBlanks().lowercased() == "chunked" else {
                // Neither chunked nor a length: the body runs until the connection ends.
                keepsAlive = false
                state = .untilClose
                return nil
            }
            state = .chunkSize
            return nil
        }
        var length: Int?
        for field in sink.headers where HTTPFields.sameName(field.name, "Content-Length") {
            for part in field.value.split(separator: ",", omittingEmptySubsequences: false) {
                let text = part.trimmingBlanks()
                guard !text.isEmpty, text.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                    let value = Int(text), length == nil || length == value
                else { return .failed("an invalid or conflicting Content-Length") }
                length = value
            }
        }
        if let length {
            if length > sink.maxBodyBytes {
                sink.overflow = "the response body is larger than the limit of \(sink.maxBodyBytes) bytes"
                return .failed("overflow")
            }
            if length == 0 {
                state = .complete
                return .done(extra: false)
            }
            state = .fixed(length)
            return nil
        }
        keepsAlive = false
        state = .untilClose
        return nil
    }

    /// A chunk-size line's size (hexadecimal, before any `;` extension), at most 15 digits.
    static func chunkSize(_ line: UnsafeRawBufferPointer) -> Int? {
        var size = 0
        var digits = 0
        for byte in line {
            let digit: Int
            switch byte {
            case 0x30...0x39: digit = Int(byte - 0x30)
            case 0x41...0x46: digit = Int(byte - 0x41 + 10)
            case 0x61...0x66: digit = Int(byte - 0x61 + 10)
            case UInt8(ascii: ";"), UInt8(ascii: " "), UInt8(ascii: "\t"):
                return digits > 0 ? size : nil
            default: return nil
            }
            digits += 1
            guard digits <= 15 else { return nil }
            size = size * 16 + digit
        }
        return digits > 0 ? size : nil
    }

    /// Whether a connection stays open after a response of `version` with these fields.
    static func keepsAlive(version: String, _ fields: [HTTPFields.Field]) -> Bool {
        var close = false
        var keepAlive = false
        for field in fields where HTTPFields.sameName(field.name, "Connection") {
            for token in field.value.split(separator: ",") {
                let name = token.trimmingBlanks().lowercased()
                if name == "close" { close = true }
                if name == "keep-alive" { keepAlive = true }
            }
        }
        if close { return false }
        return version == "HTTP/1.1" || keepAlive
    }
}

extension PlainHTTPResponseReader.Step {
    /// A step reached inside a read, with whether bytes followed it in that read.
    fileprivate func completing(extra: Bool) -> Self {
        if case .done = self { return .done(extra: extra) }
        return self
    }
}

extension Substring {
    fileprivate func trimmingBlanks() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
