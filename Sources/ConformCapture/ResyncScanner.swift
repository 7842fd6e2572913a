/// Finds where messages begin in one direction of a stream whose start was not captured (or that lost bytes): the
/// first line that is a whole HTTP/1.x request line (client) or status line (server), looked for only at line
/// starts (the first byte looked at, a byte after a line feed, the first byte of a segment), and only so far
/// (``CaptureLimits/maxResyncBytes``). Nothing before it is read.
struct ResyncScanner {
    enum Found {
        /// Not yet: more bytes are needed.
        case needMore
        /// The start line begins here: `bytes` are it and everything after it, its first byte came at `time`.
        case found(bytes: [UInt8], time: Double)
        /// More than the bound was looked through without finding one.
        case gaveUp
    }

    /// Lines taken for start lines that proved not to be, after which a stream is given up: each costs a second
    /// look at up to ``CaptureLimits/maxResyncBytes``.
    static let maxCandidates = 16

    let role: HTTPStreamParser.Role
    let limit: Int
    /// The longest line kept whole to be looked at: a start line longer than a message head is not read anyway.
    let maxLine: Int
    /// The line being read, not ended yet, and the capture time of its first byte.
    private var line: [UInt8] = []
    private var lineTime: Double = 0
    /// Whether ``line`` begins at a line start (the first byte the scan saw, or the byte after a line feed); a line
    /// too long to keep loses its start, and what follows it until the next line feed is not looked at.
    private var lineStartKnown: Bool
    /// Bytes looked through and skipped.
    private(set) var skipped = 0
    /// Those that count against the bound: a response scan counts only from when it may take a status line (the
    /// server's bytes before the client's first whole request are skipped whatever their number, holding nothing).
    private var counted = 0
    private var counts: Bool { role == .request || notBefore != nil }
    /// A response scan takes only a status line whose first byte came at or after this time (the first byte of the
    /// request the client's direction resynchronised at); `nil` until then, when nothing is taken.
    var notBefore: Double?

    init(role: HTTPStreamParser.Role, limits: CaptureLimits, atLineStart: Bool) {
        self.role = role
        limit = limits.maxResyncBytes
        maxLine = limits.maxHeadBytes
        lineStartKnown = atLineStart
    }

    /// Bytes held (the line not ended yet).
    var bufferedBytes: Int { line.count }

    /// Looks through bytes that arrived in order at `time`.
    mutating func feed(_ bytes: ArraySlice<UInt8>, at time: Double) -> Found {
        // A segment's first byte may begin a message even where the bytes before it did not end in a line feed (a
        // JSON body does not): it is looked at as a line start too.
        if !line.isEmpty, let lf = bytes.firstIndex(of: 0x0A), takes(Array(bytes[...lf]), at: time) {
            skip(line.count)
            line = []
            return .found(bytes: Array(bytes), time: time)
        }
        var position = bytes.startIndex
        while position < bytes.endIndex {
            if line.isEmpty { lineTime = time }
            guard let lf = bytes[position...].firstIndex(of: 0x0A) else {
                line.append(contentsOf: bytes[position...])
                if line.count > maxLine {
                    skip(line.count)
                    line = []
                    lineStartKnown = false
                }
                break
            }
            line.append(contentsOf: bytes[position...lf])
            position = lf + 1
            if lineStartKnown, takes(line, at: lineTime) {
                let found = line + bytes[position...]
                line = []
                return .found(bytes: found, time: lineTime)
            }
            skip(line.count)
            line = []
            lineStartKnown = true
            if counted > limit { return .gaveUp }
        }
        return counted > limit ? .gaveUp : .needMore
    }

    private mutating func skip(_ count: Int) {
        skipped += count
        if counts { counted += count }
    }

    /// Whether `line` (ending in LF) is a start line this scan takes.
    private func takes(_ line: [UInt8], at time: Double) -> Bool {
        switch role {
        case .request: return Self.isRequestLine(line)
        case .response:
            guard let notBefore, time >= notBefore else { return false }
            return Self.isStatusLine(line)
        }
    }

    /// `METHOD SP TARGET SP HTTP/1.x CRLF`: a method of capital letters (as every registered method is spelled), a
    /// target in origin form (`/…`), absolute form (`http://…`, `https://…`), authority form (`host:port`, for
    /// CONNECT) or `*`, of visible ASCII.
    static func isRequestLine(_ line: [UInt8]) -> Bool {
        guard line.count >= 2, line[line.count - 2] == 0x0D, line[line.count - 1] == 0x0A else { return false }
        let parts = line.dropLast(2).split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return false }
        let method = parts[0]
        let target = parts[1]
        let version = Array(parts[2])
        guard (1...20).contains(method.count), method.allSatisfy({ (0x41...0x5A).contains($0) }) else { return false }
        guard version == Array("HTTP/1.1".utf8) || version == Array("HTTP/1.0".utf8) else { return false }
        guard let first = target.first, target.allSatisfy({ (0x21...0x7E).contains($0) }) else { return false }
        if first == UInt8(ascii: "/") || Array(target) == [UInt8(ascii: "*")] { return true }
        let text = String(decoding: target, as: UTF8.self).lowercased()
        if text.hasPrefix("http://") || text.hasPrefix("https://") { return true }
        return Array(method) == Array("CONNECT".utf8) && text.contains(":")
    }

    /// Whether `bytes` are a request line and more, or the start of one as far as they go (empty included).
    static func couldBeginRequestLine(_ bytes: ArraySlice<UInt8>) -> Bool {
        if let lf = bytes.firstIndex(of: 0x0A) { return isRequestLine(Array(bytes[...lf])) }
        guard let space = bytes.firstIndex(of: 0x20) else {
            return bytes.count <= 20 && bytes.allSatisfy { (0x41...0x5A).contains($0) }
        }
        let method = bytes[..<space]
        guard (1...20).contains(method.count), method.allSatisfy({ (0x41...0x5A).contains($0) }) else { return false }
        return bytes[space...].allSatisfy { (0x20...0x7E).contains($0) || $0 == 0x0D }
    }

    /// `HTTP/1.x SP 3DIGIT SP reason CRLF` (the reason may be empty).
    static func isStatusLine(_ line: [UInt8]) -> Bool {
        guard line.count >= 14, line[line.count - 2] == 0x0D, line[line.count - 1] == 0x0A else { return false }
        let version = Array(line.prefix(8))
        guard version == Array("HTTP/1.1".utf8) || version == Array("HTTP/1.0".utf8), line[8] == 0x20 else {
            return false
        }
        guard line[9...11].allSatisfy({ (0x30...0x39).contains($0) }), (0x31...0x35).contains(line[9]) else {
            return false
        }
        if line.count == 14 { return true }  // no reason phrase, no space before it
        guard line[12] == 0x20 else { return false }
        return line[13..<(line.count - 2)].allSatisfy { $0 == 0x09 || (0x20...0x7E).contains($0) || $0 >= 0x80 }
    }
}
