internal import CCrypto

/// Why a key, a certificate or the local certificate authority could not be made, read or written.
public struct TLSError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }

    /// `message`, with OpenSSL's own reason for the last failure when it gave one (its error queue is emptied).
    static func openSSL(_ message: String) -> TLSError {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            if reasons.count < 3 {
                reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self))
            }
        }
        return TLSError(reasons.isEmpty ? message : "\(message) (\(reasons.joined(separator: "; ")))")
    }
}
