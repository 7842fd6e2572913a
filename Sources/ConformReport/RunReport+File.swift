import Foundation

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A JSON report read from its file (`conform merge REPORTS…`): refused when it is not a regular file or larger than
/// ``maxFileBytes``, then read into one buffer, which the parser works on without a second copy.
extension RunReport {
    /// The largest JSON report read (a bound on memory; a 100,000-step report is well under it).
    public static let maxFileBytes = 1 << 30

    /// The bytes of the report in `file` (`path` as the user named it), read into one buffer.
    public static func bytes(ofFile file: String, shown path: String) throws(RunReportError) -> [UInt8] {
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw RunReportError(
                "cannot read \(path): \(String(cString: strerror(errno)))",
                help: "pass the JSON report files of every shard")
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw RunReportError(
                "cannot read \(path): not a regular file", help: "pass the JSON report files of every shard")
        }
        let size = Int(status.st_size)
        guard size <= maxFileBytes else {
            throw RunReportError(
                "\(path) is \(size) bytes, more than the \(maxFileBytes) a report may have",
                help: "pass the JSON reports written by 'conform run --report json:FILE'")
        }
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            while count < size {
                let n = readBytes(fd, buffer.baseAddress! + count, size - count)
                if n < 0, errno == EINTR { continue }
                if n < 0 { failure = errno }
                if n <= 0 { break }
                count += n
            }
        }
        guard failure == 0 else {
            throw RunReportError(
                "cannot read \(path): \(String(cString: strerror(failure)))",
                help: "check that the file exists and is readable")
        }
        return bytes
    }
}

/// `read(2)` under a name that does not clash with a member named `read`.
private func readBytes(_ fd: Int32, _ pointer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
    read(fd, pointer, count)
}
