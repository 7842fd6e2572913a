internal import CCrypto
import Synchronization

/// SHA-256 digests computed by libcrypto.
public enum SHA256 {
    /// The number of bytes in a SHA-256 digest.
    public static let byteCount = 32

    /// The SHA-256 digest of `data`.
    public static func hash(_ data: some Sequence<UInt8>) -> [UInt8] {
        let bytes = Array(data)
        var digest = [UInt8](repeating: 0, count: byteCount)
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                if let algorithm = fetched {
                    _ = EVP_Digest(input.baseAddress, input.count, output.baseAddress, nil, algorithm, nil)
                } else {
                    _ = CCrypto.SHA256(input.baseAddress, input.count, output.baseAddress)
                }
            }
        }
        return digest
    }

    /// libcrypto's SHA-256 implementation, looked up once for the process: the one-shot `SHA256()` looks it up by
    /// name on every call (OpenSSL 3's provider store, under a lock), which cost as much as hashing a short input and
    /// serialised the threads that hash (`conform serve` derives an id per registration). `nil` only when libcrypto
    /// has no SHA-256 to give, where the one-shot call is used instead.
    nonisolated(unsafe) private static let fetched: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

    /// The SHA-256 digest of the UTF-8 bytes of `text`.
    public static func hash(_ text: String) -> [UInt8] { hash(Array(text.utf8)) }

    /// A SHA-256 digest computed piece by piece (libcrypto's EVP digest), so a large file is hashed through a small
    /// buffer rather than held whole.
    public final class Digester {
        private let context: OpaquePointer

        public init() {
            // Fails only when memory runs out, where nothing else could go on either.
            guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
                fatalError("libcrypto cannot start a SHA-256 digest")
            }
            self.context = context
        }

        deinit { EVP_MD_CTX_free(context) }

        /// Adds `bytes` to what is hashed.
        public func update(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress, bytes.count > 0 else { return }
            _ = EVP_DigestUpdate(context, base, bytes.count)
        }

        /// The digest of everything added; the digester is spent.
        public func finish() -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: byteCount)
            var length: UInt32 = 0
            digest.withUnsafeMutableBufferPointer { _ = EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
            return digest
        }
    }
}

/// HMAC message authentication codes computed by libcrypto.
public enum HMAC {
    /// HMAC-SHA-256 of `message` under `key`.
    public static func sha256(key: some Sequence<UInt8>, message: some Sequence<UInt8>) -> [UInt8] {
        let keyBytes = Array(key)
        let messageBytes = Array(message)
        var mac = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        keyBytes.withUnsafeBufferPointer { k in
            messageBytes.withUnsafeBufferPointer { m in
                mac.withUnsafeMutableBufferPointer { out in
                    // An empty key or message still needs a valid pointer.
                    var zero: UInt8 = 0
                    withUnsafeMutablePointer(to: &zero) { z in
                        _ = CCrypto.HMAC(
                            EVP_sha256(), UnsafeRawPointer(k.baseAddress ?? UnsafePointer(z)), Int32(k.count),
                            m.baseAddress ?? UnsafePointer(z), m.count, out.baseAddress, &length)
                    }
                }
            }
        }
        return Array(mac.prefix(Int(length)))
    }
}

extension HMAC {
    /// An HMAC-SHA-256 key made ready once, for many messages under the same key (a recording's pseudonyms): each
    /// message is authenticated in a copy of one keyed context, where ``sha256(key:message:)`` looks the algorithms
    /// up by name and keys a new context every time.
    public final class SHA256Key: @unchecked Sendable {
        private let key: [UInt8]
        /// The keyed context, copied under `lock` (libcrypto does not promise concurrent copies of one context);
        /// `nil` when libcrypto could not make one, where each message goes through ``sha256(key:message:)``.
        private let keyed: OpaquePointer?
        private let lock = Mutex(())

        public init(_ key: [UInt8]) {
            self.key = key
            keyed = key.withUnsafeBufferPointer { conform_hmac_sha256_keyed($0.baseAddress, $0.count) }
        }

        deinit { if let keyed { EVP_MAC_CTX_free(keyed) } }

        /// Whether libcrypto gave a keyed context to copy (else every message takes the one-shot's way).
        public var isPrepared: Bool { keyed != nil }

        /// The HMAC-SHA-256 of `message` under this key: the same bytes as ``HMAC/sha256(key:message:)``.
        public func mac(_ message: [UInt8]) -> [UInt8] {
            // The copy crosses the lock as its address: a C pointer is not `Sendable`.
            let address = lock.withLock { _ in keyed.map { Int(bitPattern: EVP_MAC_CTX_dup($0)) } ?? 0 }
            guard let copy = OpaquePointer(bitPattern: address) else { return HMAC.sha256(key: key, message: message) }
            var out = [UInt8](repeating: 0, count: 32)
            let ok = message.withUnsafeBufferPointer { m in
                out.withUnsafeMutableBufferPointer {
                    conform_hmac_sha256_final(copy, m.baseAddress, m.count, $0.baseAddress)
                }
            }
            return ok == 1 ? out : HMAC.sha256(key: key, message: message)
        }
    }
}

/// Comparisons whose running time does not depend on where the inputs differ.
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes; lengths are compared first (lengths are not secret).
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, x.count) == 0 }
        }
    }
}

/// Cryptographically secure random bytes from libcrypto.
public enum RandomBytes {
    /// `count` random bytes.
    public static func generate(count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        guard count > 0 else { return bytes }
        let ok = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        if ok != 1 {
            // libcrypto's generator failed (not seeded); fall back to the system generator.
            var generator = SystemRandomNumberGenerator()
            for i in bytes.indices { bytes[i] = UInt8.random(in: .min ... .max, using: &generator) }
        }
        return bytes
    }

    /// A random version-4 UUID string in lower case.
    public static func uuid() -> String {
        var b = generate(count: 16)
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        return Hex.uuidString(b)
    }
}
