import Foundation

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The number after the largest `seq` of a recording, found on a thread of its own so that `record --append` listens
/// at once however large the recording is (697 MB took 29.5 s to parse whole before the proxy listened).
///
/// Each line's number is read from its first bytes (`{"seq":N`, as the writer writes every line) without parsing the
/// rest; a line written otherwise is parsed whole. Lines that do not read are skipped, as the reader skips them.
final class NumberingScan: @unchecked Sendable {
    private let condition = NSCondition()
    private var found: Int?

    /// Starts reading `file` on a new thread.
    init(file: String, maxLineBytes: Int) {
        Thread.detachNewThread { [self] in
            let next = Self.scan(file: file, maxLineBytes: maxLineBytes)
            condition.lock()
            found = next
            condition.broadcast()
            condition.unlock()
        }
    }

    /// The number the next line takes; waits for the scan when it has not finished.
    func next() -> Int {
        condition.lock()
        defer { condition.unlock() }
        while found == nil { condition.wait() }
        return found!
    }

    /// Whether the scan has finished.
    var isDone: Bool {
        condition.lock()
        defer { condition.unlock() }
        return found != nil
    }

    private static let prefix = Array(#"{"seq":"#.utf8)

    /// Reads `file` in 1 MiB blocks and looks at the first bytes of each line only (`memchr` finds the line ends),
    /// so the scan runs at the speed of reading the file.
    static func scan(file: String, maxLineBytes: Int) -> Int {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 1 }
        defer { close(fd) }
        var largest = 0
        var block = [UInt8](repeating: 0, count: 1 << 20)
        // The line being read when a block ended: its first bytes, or all of it when it must be parsed whole.
        var carried: [UInt8] = []
        var lineOpen = false
        func finish(_ line: ArraySlice<UInt8>) {
            if let seq = number(line) {
                largest = max(largest, seq)
            } else if !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }),
                let record = try? TraceRecord(jsonLine: line)
            {
                largest = max(largest, record.seq)
            }
        }
        while true {
            let count = block.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            block.withUnsafeBytes { raw in
                let base = raw.baseAddress!
                var start = 0
                while start < count {
                    let found = memchr(base + start, 0x0A, count - start)
                    let end = found.map { base.distance(to: UnsafeRawPointer($0)) } ?? count
                    let piece = block[start..<end]
                    if lineOpen || found == nil {
                        // A line across blocks: its first bytes are enough when they hold its number; otherwise it
                        // is kept whole (up to the line limit) to be parsed.
                        let known = carried.count >= 32 && number(carried[...]) != nil
                        if !known, carried.count + piece.count <= maxLineBytes { carried += piece }
                    }
                    if found == nil {
                        lineOpen = true
                        break
                    }
                    if lineOpen {
                        finish(carried[...])
                        carried = []
                        lineOpen = false
                    } else {
                        finish(piece)
                    }
                    start = end + 1
                }
            }
        }
        if lineOpen { finish(carried[...]) }
        return largest + 1
    }

    /// The number a line starts with, as the writer writes it: `{"seq":` and digits, then a comma.
    static func number(_ line: ArraySlice<UInt8>) -> Int? {
        guard line.starts(with: prefix) else { return nil }
        var value = 0
        var digits = 0
        for byte in line.dropFirst(prefix.count) {
            if byte == UInt8(ascii: ",") { return digits > 0 ? value : nil }
            guard byte >= 0x30, byte <= 0x39, digits < 18 else { return nil }
            value = value * 10 + Int(byte - 0x30)
            digits += 1
        }
        return nil
    }
}
