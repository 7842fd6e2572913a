import ConformTraffic
import Foundation

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files of a bundle read through a small buffer, or whole into one array, each refused before a byte is read
/// when it is larger than the caller's limit.
extension ConfinedFile {
    /// The size of the buffer ``forEachChunk(_:in:limit:_:)`` reads through.
    public static let chunkBytes = 64 * 1024

    /// Reads `name` inside `directory` piece by piece, `body` called with each piece; refuses a file larger than
    /// `limit` before reading. Memory stays at one buffer whatever the file's size.
    public static func forEachChunk(
        _ name: String, in directory: String, limit: Int, _ body: (UnsafeRawBufferPointer) -> Void
    ) throws(Refusal) {
        let fd = try open(name, in: directory)
        defer { _ = close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw .unreadable(errno) }
        guard Int(status.st_size) <= limit else { throw .tooLarge(limit) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkBytes, alignment: 16)
        defer { buffer.deallocate() }
        var total = 0
        while true {
            let n = readChunk(fd, buffer.baseAddress!, chunkBytes)
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw .unreadable(errno) }
            if n == 0 { break }
            total += n
            // A file that grows while read is refused at the limit as one that was large to begin with.
            guard total <= limit else { throw .tooLarge(limit) }
            body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
    }

    /// The bytes of `name` inside `directory` in one array (for a parser that reads in place), at most `limit`
    /// of them; refused before reading when the file is larger.
    public static func bytes(_ name: String, in directory: String, limit: Int) throws(Refusal) -> [UInt8] {
        let fd = try open(name, in: directory)
        defer { _ = close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw .unreadable(errno) }
        let size = Int(status.st_size)
        guard size <= limit else { throw .tooLarge(limit) }
        var failure: Int32 = 0
        let out = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            while count < size {
                let n = readChunk(fd, UnsafeMutableRawPointer(buffer.baseAddress! + count), size - count)
                if n < 0, errno == EINTR { continue }
                if n < 0 { failure = errno }
                if n <= 0 { break }
                count += n
            }
        }
        guard failure == 0 else { throw .unreadable(failure) }
        // A file that shrank while read is taken as it ended; one that grew is read up to its size at the start.
        return out
    }
}

/// `read(2)`, under a name that does not clash with ``ConfinedFile/read(_:in:limit:)``.
private func readChunk(_ fd: Int32, _ pointer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, pointer, count)
}
