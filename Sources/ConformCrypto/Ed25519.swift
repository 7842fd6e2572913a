internal import CCrypto

/// Ed25519 signatures by libcrypto (`EVP_DigestSign`, `EVP_DigestVerify`), keys read from the PEM files
/// `openssl genpkey -algorithm ed25519` and `openssl pkey -pubout` write.
public enum Ed25519 {
    /// The bytes of a signature.
    public static let signatureByteCount = 64
    /// The largest key file read: an Ed25519 PEM key is about 120 bytes; anything near this is not one.
    public static let maxKeyFileBytes = 16 << 10

    /// Why a key cannot be used: what is wrong, and how to make a key that can.
    public struct KeyError: Error, Sendable, Hashable, CustomStringConvertible {
        public var message: String
        public var help: String

        public var description: String { message }
    }

    /// A private key, its 32 raw bytes (a secret: never printed).
    public struct PrivateKey: Sendable, Hashable {
        let raw: [UInt8]

        /// Reads an unencrypted PEM private key (`-----BEGIN PRIVATE KEY-----`) that must be an Ed25519 one.
        public init(pem: [UInt8]) throws(KeyError) {
            let text = String(decoding: pem, as: UTF8.self)
            if text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || text.contains("Proc-Type: 4,ENCRYPTED") {
                throw KeyError(
                    message: "the private key is encrypted (a passphrase protects it), and conform does not ask for it",
                    help: "write an unencrypted copy for the run: openssl pkey -in KEY -out plain-key.pem")
            }
            guard
                let key = MemoryBIO.reading(pem, { bio in PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil) })
            else {
                ERR_clear_error()
                throw KeyError(
                    message: text.contains("PUBLIC KEY-----")
                        ? "is a public key; signing needs the private key"
                        : "is not a PEM private key (a BEGIN PRIVATE KEY block is expected)",
                    help: "make an Ed25519 key with: openssl genpkey -algorithm ed25519 -out key.pem")
            }
            defer { EVP_PKEY_free(key) }
            raw = try Ed25519.rawBytes(
                of: key, what: "private key", help: "make the key again", EVP_PKEY_get_raw_private_key)
        }

        /// The public key that goes with it.
        public var publicKey: PublicKey {
            // A valid raw private key always gives its public key; the init refused any other.
            let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, raw, raw.count)!
            defer { EVP_PKEY_free(key) }
            var length = 32
            var bytes = [UInt8](repeating: 0, count: 32)
            _ = EVP_PKEY_get_raw_public_key(key, &bytes, &length)
            return PublicKey(raw: bytes)
        }

        /// The signature of `message` (64 bytes), as `openssl pkeyutl -sign -rawin` makes it.
        public func sign(_ message: [UInt8]) -> [UInt8] {
            guard let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, raw, raw.count),
                let context = EVP_MD_CTX_new()
            else { fatalError("libcrypto cannot make an Ed25519 key") }
            defer {
                EVP_MD_CTX_free(context)
                EVP_PKEY_free(key)
            }
            var signature = [UInt8](repeating: 0, count: signatureByteCount)
            var length = signatureByteCount
            // Ed25519 hashes the message itself: no digest is named, and the message is signed in one call.
            guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1,
                message.withUnsafeBufferPointer({
                    EVP_DigestSign(context, &signature, &length, $0.baseAddress, $0.count)
                }) == 1, length == signatureByteCount
            else { fatalError("libcrypto cannot sign with Ed25519") }
            return signature
        }
    }

    /// A public key, its 32 raw bytes.
    public struct PublicKey: Sendable, Hashable {
        let raw: [UInt8]

        init(raw: [UInt8]) { self.raw = raw }

        /// Reads a PEM public key (`-----BEGIN PUBLIC KEY-----`, SubjectPublicKeyInfo) that must be an Ed25519 one.
        public init(pem: [UInt8]) throws(KeyError) {
            let text = String(decoding: pem, as: UTF8.self)
            guard let key = MemoryBIO.reading(pem, { bio in PEM_read_bio_PUBKEY(bio, nil, nil, nil) }) else {
                ERR_clear_error()
                throw KeyError(
                    message: text.contains("PRIVATE KEY-----")
                        ? "is a private key; verifying needs only the public key"
                        : "is not a PEM public key (a BEGIN PUBLIC KEY block is expected)",
                    help:
                        "write the public key of the signing key with: openssl pkey -in key.pem -pubout -out public.pem"
                )
            }
            defer { EVP_PKEY_free(key) }
            raw = try Ed25519.rawBytes(
                of: key, what: "public key", help: "write the public key again", EVP_PKEY_get_raw_public_key)
        }

        /// Whether `signature` is this key's signature of `message`.
        public func verifies(_ signature: [UInt8], of message: [UInt8]) -> Bool {
            guard signature.count == signatureByteCount,
                let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, raw, raw.count),
                let context = EVP_MD_CTX_new()
            else { return false }
            defer {
                EVP_MD_CTX_free(context)
                EVP_PKEY_free(key)
            }
            let ok =
                EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1
                && message.withUnsafeBufferPointer {
                    EVP_DigestVerify(context, signature, signature.count, $0.baseAddress, $0.count)
                } == 1
            ERR_clear_error()
            return ok
        }

        /// `SHA256:` and the lower-case hex SHA-256 of the key's DER SubjectPublicKeyInfo, which
        /// `openssl pkey -pubin -in public.pem -outform DER | sha256sum` prints as well.
        public var fingerprint: String {
            guard let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, raw, raw.count) else { return "?" }
            defer { EVP_PKEY_free(key) }
            var out: UnsafeMutablePointer<UInt8>?
            let length = i2d_PUBKEY(key, &out)
            guard length > 0, let out else { return "?" }
            defer { CRYPTO_free(out, #fileID, #line) }
            return "SHA256:" + Hex.encode(SHA256.hash(UnsafeBufferPointer(start: out, count: Int(length))))
        }
    }

    /// The 32 raw bytes `get` (`EVP_PKEY_get_raw_private_key` or `EVP_PKEY_get_raw_public_key`) reads from `key`,
    /// which must be an Ed25519 `what`; `help` says how to make one whose bytes can be read.
    static func rawBytes(
        of key: OpaquePointer, what: String, help: String,
        _ get: (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>?) -> Int32
    ) throws(KeyError) -> [UInt8] {
        try requireEd25519(key, what: what)
        var length = 32
        var bytes = [UInt8](repeating: 0, count: 32)
        guard get(key, &bytes, &length) == 1, length == 32 else {
            ERR_clear_error()
            throw KeyError(message: "its \(what) cannot be read", help: help)
        }
        return bytes
    }

    /// Refuses a key of another type, naming it.
    static func requireEd25519(_ key: OpaquePointer, what: String) throws(KeyError) {
        let type = EVP_PKEY_get_base_id(key)
        guard type == EVP_PKEY_ED25519 else {
            let name: String =
                switch type {
                case EVP_PKEY_RSA: "an RSA"
                case EVP_PKEY_EC: "an EC (ECDSA)"
                case EVP_PKEY_ED448: "an Ed448"
                case EVP_PKEY_X25519: "an X25519"
                default: "another type of"
                }
            throw KeyError(
                message: "is \(name) \(what), not an Ed25519 one",
                help: "bundles are signed with Ed25519: openssl genpkey -algorithm ed25519 -out key.pem")
        }
    }
}
