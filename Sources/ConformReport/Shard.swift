import ConformCore

/// One of N deterministic slices of a run: suites (or replay groups) go to a shard by a stable hash of their key.
///
/// The hash is FNV-1a (64-bit) of the key's UTF-8 bytes, so every machine and every process of a CI matrix or a
/// Kubernetes Indexed Job puts the same key in the same shard (Swift's `hashValue` is seeded per process).
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// 1-based position of this shard.
    public let index: Int
    /// How many shards the work is split into.
    public let count: Int

    /// The most shards a run may be split into.
    public static let maxCount = 1000
    /// The whole run as one shard.
    public static let whole = Shard(uncheckedIndex: 1, count: 1)

    /// A shard `index` of `count`, or `nil` unless 1 ≤ index ≤ count ≤ ``maxCount``.
    public init?(index: Int, count: Int) {
        guard (1...Self.maxCount).contains(count), (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    private init(uncheckedIndex: Int, count: Int) {
        self.index = uncheckedIndex
        self.count = count
    }

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }

    /// The shard (1-based) that `key` belongs to when the work is split into `count` shards.
    public static func shardIndex(of key: String, count: Int) -> Int {
        Int(stableHash(key) % UInt64(max(count, 1))) + 1
    }

    /// Whether `key` belongs to this shard.
    public func owns(_ key: String) -> Bool { Self.shardIndex(of: key, count: count) == index }

    /// FNV-1a, 64-bit, of the UTF-8 bytes of `key`: the same on every platform and in every process.
    public static func stableHash(_ key: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}

/// Where the suites of one shard sit in the whole, unsharded plan, for merging shard reports back into one run.
public struct ShardPlacement: Sendable, Hashable {
    public var shard: Shard
    /// How many suites the whole plan holds.
    public var planSuites: Int
    /// For each suite of this shard, in run order, its 0-based position in the whole plan.
    public var positions: [Int]

    public init(shard: Shard, planSuites: Int, positions: [Int]) {
        self.shard = shard
        self.planSuites = planSuites
        self.positions = positions
    }

    /// The placement of an unsharded run of `suiteCount` suites.
    public static func whole(suiteCount: Int) -> ShardPlacement {
        ShardPlacement(shard: .whole, planSuites: suiteCount, positions: Array(0..<suiteCount))
    }

    /// The suites of `shard` (by a stable hash of their id) in plan order, and their placement.
    public static func select(_ suites: [Suite], shard: Shard) -> (suites: [Suite], placement: ShardPlacement) {
        let picked = suites.enumerated().filter { shard.owns($0.element.id) }
        return (
            picked.map(\.element),
            ShardPlacement(shard: shard, planSuites: suites.count, positions: picked.map(\.offset))
        )
    }
}
