import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where the local CA lives on disk: a directory holding `ca-cert.pem` and `ca-key.pem` (mode 0600, created with
/// `O_EXCL` and `O_NOFOLLOW`, owned by the user); made once, atomically, so two processes starting at once share one.
public struct CertificateAuthorityStore: Sendable {
    public let directory: String

    public init(directory: String) { self.directory = directory }

    /// `$XDG_CONFIG_HOME/conform/ca`, else `$HOME/.config/conform/ca`; `nil` when neither variable is set.
    public static func defaultDirectory(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/conform/ca" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.config/conform/ca" }
        return nil
    }

    public var certificatePath: String { directory + "/ca-cert.pem" }
    public var keyPath: String { directory + "/ca-key.pem" }

    /// The CA in the directory, or `nil` when there is none yet.
    public func load() throws(TLSError) -> CertificateAuthority? {
        var info = stat()
        guard lstat(directory, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw TLSError("cannot read \(directory): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw TLSError("\(directory) is not a directory; move it away or run 'conform ca --reset'")
        }
        let certificateText = try Self.read(certificatePath, secret: false)
        let keyText = try Self.read(keyPath, secret: true)
        do {
            return try CertificateAuthority(
                certificate: Certificate(pem: certificateText), key: PrivateKey(pem: keyText))
        } catch {
            throw TLSError(
                "\(directory) holds no usable CA (\(error.message)); run 'conform ca --reset' to make a new one")
        }
    }

    /// The CA in the directory, made first when there is none; `created` says which.
    public func loadOrCreate() throws(TLSError) -> (authority: CertificateAuthority, created: Bool) {
        if let existing = try load() { return (existing, false) }
        let authority = try CertificateAuthority.create()
        if try install(authority) { return (authority, true) }
        // Another process made one first: use that one.
        guard let existing = try load() else { throw TLSError("cannot create the CA in \(directory)") }
        return (existing, false)
    }

    /// Removes the CA (its key first) and makes a new one.
    public func reset() throws(TLSError) -> CertificateAuthority {
        var info = stat()
        if lstat(directory, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw TLSError("\(directory) is not a directory; move it away first")
            }
            do {
                try FileManager.default.removeItem(atPath: directory)
            } catch {
                throw TLSError("cannot remove the old CA in \(directory): \(error.localizedDescription)")
            }
        }
        let authority = try CertificateAuthority.create()
        guard try install(authority) else { throw TLSError("another process made a CA in \(directory) meanwhile") }
        return authority
    }

    /// Writes the CA into a fresh temporary directory beside `directory` and renames it into place; `false` when
    /// `directory` appeared meanwhile.
    private func install(_ authority: CertificateAuthority) throws(TLSError) -> Bool {
        let parent = (directory as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(
                atPath: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw TLSError("cannot create \(parent): \(error.localizedDescription)")
        }
        var template = Array((directory + ".new-XXXXXX").utf8CString)
        // mkdtemp fills in the X's in place; the name is read from the array afterwards.
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw TLSError("cannot create a directory beside \(directory): \(String(cString: strerror(errno)))")
        }
        let staging = String(decoding: template.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
        do {
            try Self.write(authority.key.pem, to: staging + "/ca-key.pem", mode: 0o600)
            try Self.write(authority.certificate.pem, to: staging + "/ca-cert.pem", mode: 0o644)
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw error
        }
        if rename(staging, directory) == 0 { return true }
        let reason = errno
        try? FileManager.default.removeItem(atPath: staging)
        if reason == EEXIST || reason == ENOTEMPTY { return false }
        throw TLSError("cannot move the new CA into \(directory): \(String(cString: strerror(reason)))")
    }

    /// Creates `path` (never over an existing file or through a symbolic link) with `mode` and writes `text`.
    static func write(_ text: String, to path: String, mode: mode_t) throws(TLSError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw TLSError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw TLSError("cannot write \(path): \(String(cString: strerror(errno)))") }
            written += n
        }
        guard fchmod(fd, mode) == 0, fsync(fd) == 0 else {
            throw TLSError("cannot finish \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Reads a file of the store without following a symbolic link; a key must be the user's and private to them.
    static func read(_ path: String, secret: Bool) throws(TLSError) -> String {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw TLSError("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw TLSError("\(path) is not a regular file")
        }
        if secret {
            guard info.st_uid == geteuid() else {
                throw TLSError("\(path) belongs to another user; run 'conform ca --reset' to make your own CA")
            }
            guard info.st_mode & 0o077 == 0 else {
                throw TLSError(
                    "\(path) may be read by others (mode \(String(info.st_mode & 0o777, radix: 8))); "
                        + "run 'chmod 600 \(path)', or 'conform ca --reset' if others may have read it")
            }
        }
        guard info.st_size <= 64 * 1024 else { throw TLSError("\(path) is larger than 64 KiB") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var got = 0
        while got < bytes.count {
            let n = bytes[got...].withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            got += n
        }
        return String(decoding: bytes.prefix(got), as: UTF8.self)
    }
}
