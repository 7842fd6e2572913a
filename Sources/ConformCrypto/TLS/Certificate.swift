internal import CCrypto
import Foundation

/// An X.509 certificate held by OpenSSL; read-only once made.
public final class Certificate: @unchecked Sendable {
    let raw: OpaquePointer

    init(raw: OpaquePointer) { self.raw = raw }

    deinit { X509_free(raw) }

    /// Reads the first certificate of a PEM text.
    public convenience init(pem: String) throws(TLSError) {
        let x509: OpaquePointer? = MemoryBIO.reading(Array(pem.utf8)) { bio in
            PEM_read_bio_X509(bio, nil, nil, nil)
        }
        guard let x509 else { throw .openSSL("not a PEM certificate (a BEGIN CERTIFICATE block is expected)") }
        self.init(raw: x509)
    }

    /// The certificate as PEM (`-----BEGIN CERTIFICATE-----`).
    public var pem: String { MemoryBIO.text { bio in PEM_write_bio_X509(bio, raw) == 1 } }

    /// The certificate's DER bytes (what a `.cer` file holds).
    public var der: [UInt8] {
        let count = i2d_X509(raw, nil)
        guard count > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: Int(count))
        out.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            _ = i2d_X509(raw, &cursor)
        }
        return out
    }

    /// The SHA-256 of the DER bytes, as upper-case hex pairs joined by colons (how devices show a fingerprint).
    public var sha256Fingerprint: String {
        SHA256.hash(der).map { Hex.encode([$0]).uppercased() }.joined(separator: ":")
    }

    /// OpenSSL's old (MD5-based) subject name hash as eight hex digits: the name Android's system store gives the
    /// file of a CA (`<hash>.0`), as `openssl x509 -subject_hash_old` prints it.
    public var subjectHashOld: String {
        let hash = String(X509_subject_name_hash_old(raw), radix: 16)
        return String(repeating: "0", count: max(0, 8 - hash.count)) + hash
    }

    /// The subject as a one-line text (`CN=…, O=…`).
    public var subject: String {
        MemoryBIO.text { bio in conform_print_subject(bio, raw) >= 0 }
    }

    /// Whether `key` is the private key of this certificate's public key.
    public func matches(_ key: PrivateKey) -> Bool { X509_check_private_key(raw, key.raw) == 1 }
}
