/// Keyed digest on the standard library's seeded SipHash; stands in until HMAC-SHA256 is wired from ConformCrypto.
struct InterimKeyedDigest: KeyedDigest {
    let key: [UInt8]

    func mac(_ message: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for block in 0..<4 {
            var hasher = Hasher()
            hasher.combine(block)
            key.withUnsafeBytes { hasher.combine(bytes: $0) }
            hasher.combine(message.count)
            message.withUnsafeBytes { hasher.combine(bytes: $0) }
            let value = UInt64(bitPattern: Int64(hasher.finalize()))
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        return out
    }
}
