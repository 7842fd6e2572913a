#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a file line by line through a fixed-size window, so memory stays bounded by the longest line.
final class LineReader {
    /// One line without its `\n`; `terminated` is false for a last line with no newline.
    struct Line {
        var bytes: ArraySlice<UInt8>
        var terminated: Bool
    }

    enum Failure: Error {
        case open(Int32)
        case read(Int32)
        case lineTooLong(Int)
    }

    private let fd: Int32
    /// The window: bytes read but not yet handed out are `buffer[start..<end]`; past `end` is free room for the
    /// next read. It grows only for a line longer than it, and is compacted in place, never zeroed again.
    private var buffer: [UInt8] = []
    private var start = 0
    private var end = 0
    /// How far from `start` the search for a newline has already looked.
    private var scanned = 0
    private var atEOF = false
    private let chunkSize: Int
    let maxLineBytes: Int

    init(path: String, chunkSize: Int = 64 << 10, maxLineBytes: Int = 64 << 20) throws(Failure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .open(errno) }
        self.fd = fd
        self.chunkSize = chunkSize
        self.maxLineBytes = maxLineBytes
    }

    /// Reads an open descriptor, which the reader then owns and closes.
    init(descriptor fd: Int32, chunkSize: Int = 64 << 10, maxLineBytes: Int = 64 << 20) {
        self.fd = fd
        self.chunkSize = chunkSize
        self.maxLineBytes = maxLineBytes
    }

    deinit { close(fd) }

    func next() throws(Failure) -> Line? {
        while true {
            if let newline = newline(from: scanned) {
                let line = buffer[start..<newline]
                start = newline + 1
                scanned = start
                return Line(bytes: line, terminated: true)
            }
            scanned = end
            if scanned - start > maxLineBytes { throw .lineTooLong(maxLineBytes) }
            if atEOF {
                guard start < end else { return nil }
                let line = buffer[start..<end]
                start = end
                scanned = start
                return Line(bytes: line, terminated: false)
            }
            try fill()
        }
    }

    /// The index of the first newline in `buffer[from..<end]`, found by `memchr`.
    private func newline(from: Int) -> Int? {
        guard from < end else { return nil }
        return buffer.withUnsafeBytes { bytes -> Int? in
            guard let found = memchr(bytes.baseAddress! + from, 0x0A, end - from) else { return nil }
            return bytes.baseAddress!.distance(to: UnsafeRawPointer(found))
        }
    }

    private func fill() throws(Failure) {
        let live = end - start
        if start > 0 {
            if live > 0 {
                buffer.withUnsafeMutableBytes { _ = memmove($0.baseAddress!, $0.baseAddress! + start, live) }
            }
            scanned -= start
            start = 0
            end = live
        }
        if buffer.count - end < chunkSize { grow(to: max(end + chunkSize, buffer.count * 2)) }
        var n: Int
        repeat {
            n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + end, chunkSize) }
        } while n < 0 && errno == EINTR
        guard n >= 0 else { throw .read(errno) }
        end += n
        if n == 0 { atEOF = true }
    }

    /// Makes the window `count` bytes, keeping what it holds (copied, the rest zeroed, each once).
    private func grow(to count: Int) {
        let kept = end
        buffer = buffer.withUnsafeBytes { old in
            [UInt8](unsafeUninitializedCapacity: count) { new, initialized in
                if kept > 0 { _ = memcpy(new.baseAddress!, old.baseAddress!, kept) }
                _ = memset(new.baseAddress! + kept, 0, count - kept)
                initialized = count
            }
        }
    }
}

/// POSIX calls under names that do not clash with methods of the same name.
enum POSIX {
    static func closeFile(_ fd: Int32) { _ = close(fd) }
    @Sendable static func writeBytes(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        write(fd, pointer, count)
    }
    /// Whether `path` itself (not what it names) is a symbolic link.
    static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }
}
