import ConformCrypto

/// A keyed message digest used to derive pseudonyms; the recording's key never leaves the process.
protocol KeyedDigest: Sendable {
    /// At least 16 bytes that depend on the key and every byte of `message`.
    func mac(_ message: [UInt8]) -> [UInt8]
}

/// Fresh random key material for one recording.
func randomKey(count: Int = 32) -> [UInt8] { RandomBytes.generate(count: count) }
