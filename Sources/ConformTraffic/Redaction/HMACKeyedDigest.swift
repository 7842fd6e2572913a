import ConformCrypto

/// HMAC-SHA256 under the recording's key (libcrypto through ConformCrypto), keyed once.
struct HMACKeyedDigest: KeyedDigest {
    let key: HMAC.SHA256Key

    init(key: [UInt8]) { self.key = HMAC.SHA256Key(key) }

    func mac(_ message: [UInt8]) -> [UInt8] { key.mac(message) }
}
