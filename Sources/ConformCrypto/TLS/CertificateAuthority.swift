internal import CCrypto
import Foundation

/// A local certificate authority: a self-signed CA certificate and its key, which issues short-lived leaf
/// certificates for server names (DNS names and IP addresses), so clients that trust the CA trust the leaves.
public struct CertificateAuthority: Sendable {
    public let certificate: Certificate
    /// The CA's key: a secret, never printed or exported.
    public let key: PrivateKey

    /// How long a new CA is valid: ten years.
    public static let validity: TimeInterval = 10 * 365 * 86_400
    /// How long a leaf is valid: seven days (clients cap leaf lifetimes; a long-running listener re-issues).
    public static let leafValidity: TimeInterval = 7 * 86_400

    public init(certificate: Certificate, key: PrivateKey) throws(TLSError) {
        guard certificate.matches(key) else { throw TLSError("the CA key does not belong to the CA certificate") }
        self.certificate = certificate
        self.key = key
    }

    /// A new CA (P-256 key, `CN=Conform local CA <id>`, `CA:TRUE` with path length 0, may sign certificates only).
    ///
    /// Its key usage is *certificate sign* and *CRL sign*, critical, as RFC 5280 (4.2.1.3) asks of a CA: the key
    /// signs leaves and nothing else (no TLS handshake, no OCSP answer), so *digital signature* is left out.
    public static func create(now: Date = Date()) throws(TLSError) -> CertificateAuthority {
        let key = try PrivateKey.generateP256()
        var id = [UInt8](repeating: 0, count: 4)
        guard RAND_bytes(&id, Int32(id.count)) == 1 else { throw .openSSL("no random bytes for the CA's name") }
        let builder = CertificateBuilder(
            subject: [("O", "Conform"), ("CN", "Conform local CA " + id.map { String(format: "%02x", $0) }.joined())],
            notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(validity),
            extensions: [
                (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                (NID_key_usage, "critical,keyCertSign,cRLSign"),
                (NID_subject_key_identifier, "hash"),
            ])
        let certificate = try builder.sign(publicKey: key, issuer: nil, signer: key)
        return try CertificateAuthority(certificate: certificate, key: key)
    }

    /// A leaf for `names` (the first is the subject's common name), valid from an hour ago for ``leafValidity``:
    /// `CA:FALSE`, digital signature, server authentication, every name as a DNS or IP subject alternative name.
    public func issue(for names: [ServerName], now: Date = Date()) throws(TLSError) -> IssuedCertificate {
        let unique = names.reduce(into: [ServerName]()) { if !$0.contains($1) { $0.append($1) } }
        guard let first = unique.first else { throw TLSError("a leaf certificate needs at least one name") }
        guard unique.count <= 100 else { throw TLSError("a leaf certificate takes at most 100 names") }
        let key = try PrivateKey.generateP256()
        let notAfter = now.addingTimeInterval(Self.leafValidity)
        let builder = CertificateBuilder(
            subject: [("O", "Conform"), ("CN", String(first.text.prefix(64)))],
            notBefore: now.addingTimeInterval(-3600), notAfter: notAfter,
            extensions: [
                (NID_basic_constraints, "critical,CA:FALSE"),
                (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "serverAuth"),
                (NID_subject_alt_name, unique.map(\.altName).joined(separator: ",")),
                (NID_subject_key_identifier, "hash"),
                (NID_authority_key_identifier, "keyid:always"),
            ])
        let certificate = try builder.sign(publicKey: key, issuer: self.certificate, signer: self.key)
        return IssuedCertificate(certificate: certificate, key: key, names: unique, notAfter: notAfter)
    }
}

/// A leaf certificate with its key and what it was issued for.
public struct IssuedCertificate: Sendable {
    public let certificate: Certificate
    public let key: PrivateKey
    public let names: [ServerName]
    public let notAfter: Date
}
