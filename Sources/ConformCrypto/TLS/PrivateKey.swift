internal import CCrypto
import Foundation

/// A private key held by OpenSSL (an `EVP_PKEY`); read-only once made, so it may sign from any thread.
public final class PrivateKey: @unchecked Sendable {
    let raw: OpaquePointer

    init(raw: OpaquePointer) { self.raw = raw }

    deinit { EVP_PKEY_free(raw) }

    /// A new ECDSA key on P-256, the curve every TLS client accepts.
    public static func generateP256() throws(TLSError) -> PrivateKey {
        guard let key = conform_ec_key(NID_X9_62_prime256v1) else { throw .openSSL("cannot generate a P-256 key") }
        return PrivateKey(raw: key)
    }

    /// Reads a PEM private key (PKCS#8, or the traditional RSA and EC forms); an encrypted key
    /// (``isEncrypted(pem:)``) is refused with the way to an unencrypted copy.
    public convenience init(pem: String) throws(TLSError) {
        if Self.isEncrypted(pem: pem) {
            throw TLSError(
                "the private key is encrypted (a passphrase protects it), and a server cannot ask for the "
                    + "passphrase; it needs an unencrypted copy ('openssl pkey -in KEY -out plain-key.pem' writes one)")
        }
        let key: OpaquePointer? = MemoryBIO.reading(Array(pem.utf8)) { bio in
            PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let key else {
            throw .openSSL("not a PEM private key (an unencrypted BEGIN PRIVATE KEY block is expected)")
        }
        self.init(raw: key)
    }

    /// Whether `pem` holds a passphrase-protected key: PKCS#8's `ENCRYPTED PRIVATE KEY` block, or a traditional
    /// RSA or EC block with `Proc-Type: 4,ENCRYPTED`.
    public static func isEncrypted(pem: String) -> Bool {
        pem.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || pem.contains("Proc-Type: 4,ENCRYPTED")
    }

    /// The key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`): a secret, never printed.
    public var pem: String {
        MemoryBIO.text { bio in PEM_write_bio_PrivateKey(bio, raw, nil, nil, 0, nil, nil) == 1 }
    }
}

/// OpenSSL's in-memory BIOs, for PEM in and out.
enum MemoryBIO {
    /// Runs `body` on a read-only BIO over `bytes`.
    static func reading<R>(_ bytes: [UInt8], _ body: (OpaquePointer) -> R?) -> R? {
        bytes.withUnsafeBytes { buffer -> R? in
            guard let base = buffer.baseAddress, let bio = BIO_new_mem_buf(base, Int32(buffer.count)) else {
                return nil
            }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    /// What `write` puts into a fresh memory BIO, as text; empty when it fails.
    static func text(_ write: (OpaquePointer) -> Bool) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard write(bio) else { return "" }
        var data: UnsafeMutablePointer<CChar>?
        let count = conform_bio_mem_data(bio, &data)
        guard let data, count > 0 else { return "" }
        return data.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }
}
