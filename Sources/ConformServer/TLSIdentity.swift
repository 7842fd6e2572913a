import Foundation

/// What an HTTPS listener presents: its private key and certificate chain (leaf first) as PEM.
///
/// The server library reads both when the listener starts; they are kept as C strings for the listener's life.
public final class TLSIdentity: Sendable {
    /// The certificate chain as given (public).
    public let certificatePEM: String
    private let key: CString
    private let certificate: CString

    public init(keyPEM: String, certificatePEM: String) {
        self.certificatePEM = certificatePEM
        self.key = CString(keyPEM)
        self.certificate = CString(certificatePEM)
    }

    func withPEM<R>(_ body: (UnsafePointer<CChar>, UnsafePointer<CChar>) -> R) -> R {
        body(key.constPointer, certificate.constPointer)
    }
}

extension TLSIdentity? {
    /// The key and certificate of an identity, or two null pointers for plain HTTP.
    func withPEM<R>(_ body: (UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> R) -> R {
        switch self {
        case .some(let identity): identity.withPEM { body($0, $1) }
        case .none: body(nil, nil)
        }
    }
}

/// A NUL-terminated copy of a text that lives as long as this value; the key's copy is wiped before it is freed.
private final class CString: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<CChar>
    let count: Int

    init(_ text: String) {
        let bytes = Array(text.utf8CString)
        count = bytes.count
        pointer = .allocate(capacity: count)
        pointer.initialize(from: bytes, count: count)
    }

    deinit {
        pointer.update(repeating: 0, count: count)
        pointer.deallocate()
    }

    var constPointer: UnsafePointer<CChar> { UnsafePointer(pointer) }
}
