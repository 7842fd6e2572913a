/// SplitMix64 (Steele, Lea and Flood): a small generator that gives the same numbers on every platform, so a seed
/// replays the same draws. The one seeded generator of the project: the reference's state, `--client-faults`'
/// chances, `conform explore`'s sequences and the tests' seeded inputs.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose first draw follows `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A draw in `[0, 1)` from the top 53 bits of the next draw.
    public mutating func nextUnitInterval() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
