import Foundation

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file a trace names on disk (a HAR's attached body, a recording's `meta.json` and `exchanges.jsonl`), opened
/// only inside the trace's own directory: a relative path of plain names, each component opened with `openat` and
/// `O_NOFOLLOW`, so no symbolic link, `..` or absolute path can make Conform read (and send, or copy into a
/// recording) a file elsewhere on the disk.
public enum ConfinedFile {
    /// Why a named file was not opened; `description` says it in words for a diagnostic.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// The name starts with `/`.
        case absolute
        /// A component is `..`, `.` or empty.
        case outside
        /// A component is a symbolic link.
        case link(String)
        /// Not a regular file (a directory, a FIFO, a device).
        case notRegular
        /// No such file inside the directory.
        case missing
        /// Larger than the limit the caller reads.
        case tooLarge(Int)
        /// Any other failure, with its `errno`.
        case unreadable(Int32)

        public var description: String {
            switch self {
            case .absolute: "an absolute path"
            case .outside: "a path through '..' or '.'"
            case .link(let component): "'\(component)' is a symbolic link"
            case .notRegular: "not a regular file"
            case .missing: "no such file"
            case .tooLarge(let limit): "larger than \(limit) bytes"
            case .unreadable(let code): "cannot be read (\(String(cString: strerror(code))))"
            }
        }
    }

    /// Opens `name` (a relative path such as `bodies/1.json`) inside `directory` for reading; the caller closes
    /// the descriptor. `directory` itself is what the user named and may be reached through links.
    public static func open(_ name: String, in directory: String) throws(Refusal) -> Int32 {
        guard !name.hasPrefix("/") else { throw .absolute }
        let components = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else { throw .outside }
        var current = openDirectory(directory.isEmpty ? "." : directory)
        guard current >= 0 else { throw errno == ENOENT ? .missing : .unreadable(errno) }
        for (i, component) in components.enumerated() {
            let last = i == components.count - 1
            // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just below.
            let flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (last ? O_NONBLOCK : O_DIRECTORY)
            let next = openat(current, component, flags)
            let code = errno
            if next < 0 {
                defer { _ = close(current) }
                if isLink(component, in: current) { throw .link(component) }
                throw code == ENOENT ? .missing : code == ENOTDIR ? .notRegular : .unreadable(code)
            }
            _ = close(current)
            current = next
        }
        var status = stat()
        guard fstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            _ = close(current)
            throw .notRegular
        }
        return current
    }

    /// The bytes of `name` inside `directory`, at most `limit` of them.
    public static func read(_ name: String, in directory: String, limit: Int) throws(Refusal) -> Data {
        let fd = try open(name, in: directory)
        defer { _ = close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw .unreadable(errno) }
        guard Int(status.st_size) <= limit else { throw .tooLarge(limit) }
        var data = Data(count: Int(status.st_size))
        var filled = 0
        while filled < data.count {
            let n = data.withUnsafeMutableBytes { readBytes(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw .unreadable(errno) }
            if n == 0 { break }
            filled += n
        }
        // A file that shrank while read is taken as it ended; one that grew is read up to its size at the start.
        data.count = filled
        return data
    }

    private static func isLink(_ component: String, in directory: Int32) -> Bool {
        var status = stat()
        return fstatat(directory, component, &status, AT_SYMLINK_NOFOLLOW) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }
}

/// The C calls under names that do not clash with ``ConfinedFile``'s own `open` and `read`.
private func openDirectory(_ path: String) -> Int32 { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
private func readBytes(_ fd: Int32, _ pointer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, pointer, count)
}
