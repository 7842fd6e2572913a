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
    private var buffer: [UInt8] = []
    private var start = 0
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
            if let newline = buffer[scanned...].firstIndex(of: 0x0A) {
                let line = buffer[start..<newline]
                start = newline + 1
                scanned = start
                return Line(bytes: line, terminated: true)
            }
            scanned = buffer.count
            if scanned - start > maxLineBytes { throw .lineTooLong(maxLineBytes) }
            if atEOF {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                scanned = start
                return Line(bytes: line, terminated: false)
            }
            try fill()
        }
    }

    private func fill() throws(Failure) {
        if start > 0 {
            buffer.removeSubrange(0..<start)
            scanned -= start
            start = 0
        }
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: chunkSize))
        var n: Int
        repeat {
            n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + old, chunkSize) }
        } while n < 0 && errno == EINTR
        guard n >= 0 else {
            buffer.removeSubrange(old...)
            throw .read(errno)
        }
        buffer.removeSubrange((old + n)...)
        if n == 0 { atEOF = true }
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
