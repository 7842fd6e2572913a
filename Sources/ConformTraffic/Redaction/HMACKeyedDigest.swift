import ConformCrypto

/// HMAC-SHA256 under the recording's key (libcrypto through ConformCrypto).
struct HMACKeyedDigest: KeyedDigest {
    let key: [UInt8]

    func mac(_ message: [UInt8]) -> [UInt8] { HMAC.sha256(key: key, message: message) }
}
