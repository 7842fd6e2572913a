internal import CCrypto
import Foundation

/// Makes and signs one X.509 v3 certificate with OpenSSL: subject, random serial, validity and extensions.
struct CertificateBuilder {
    var subject: [(field: String, value: String)]
    var notBefore: Date
    var notAfter: Date
    /// Extensions in OpenSSL's configuration syntax, by NID: `(NID_basic_constraints, "critical,CA:TRUE")`.
    var extensions: [(nid: Int32, value: String)]

    /// Signs a certificate for `key`'s public key with `signer`, issued by `issuer` (itself when `nil`).
    func sign(publicKey key: PrivateKey, issuer: Certificate?, signer: PrivateKey) throws(TLSError) -> Certificate {
        guard let x509 = X509_new() else { throw .openSSL("cannot allocate a certificate") }
        let certificate = Certificate(raw: x509)
        guard X509_set_version(x509, 2) == 1 else { throw .openSSL("cannot set the certificate version") }
        try setSerial(x509)
        guard let name = X509_get_subject_name(x509) else { throw .openSSL("cannot read the subject") }
        for (field, value) in subject where conform_name_add(name, field, value) != 1 {
            throw .openSSL("cannot set the subject's \(field)")
        }
        let issuerName = issuer.map { X509_get_subject_name($0.raw) } ?? name
        guard X509_set_issuer_name(x509, issuerName) == 1 else { throw .openSSL("cannot set the issuer") }
        let now = Date()
        guard X509_gmtime_adj(X509_getm_notBefore(x509), Int(notBefore.timeIntervalSince(now))) != nil,
            X509_gmtime_adj(X509_getm_notAfter(x509), Int(notAfter.timeIntervalSince(now))) != nil
        else { throw .openSSL("cannot set the validity") }
        guard X509_set_pubkey(x509, key.raw) == 1 else { throw .openSSL("cannot set the public key") }
        var context = X509V3_CTX()
        conform_x509v3_ctx(&context, issuer?.raw ?? x509, x509)
        for (nid, value) in extensions {
            guard let extensionValue = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw .openSSL("cannot make the extension \(value)")
            }
            defer { X509_EXTENSION_free(extensionValue) }
            guard X509_add_ext(x509, extensionValue, -1) == 1 else {
                throw .openSSL("cannot add the extension \(value)")
            }
        }
        guard X509_sign(x509, signer.raw, EVP_sha256()) > 0 else { throw .openSSL("cannot sign the certificate") }
        return certificate
    }

    /// A positive random serial of 128 bits (RFC 5280 allows 20 octets).
    private func setSerial(_ x509: OpaquePointer) throws(TLSError) {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else { throw .openSSL("no random bytes for the serial") }
        bytes[0] = (bytes[0] & 0x7F) | 0x01
        guard let number = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw .openSSL("cannot make the serial") }
        defer { BN_free(number) }
        guard BN_to_ASN1_INTEGER(number, X509_get_serialNumber(x509)) != nil else {
            throw .openSSL("cannot set the serial")
        }
    }
}
