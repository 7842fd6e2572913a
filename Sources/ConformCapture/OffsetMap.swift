/// An ordered map from stream offsets to values: a treap (a binary search tree kept balanced by random priorities)
/// in arrays, so finding, inserting and removing cost O(log n) expected and n segments held out of order cost
/// O(n log n) in all, whatever order they arrive in.
///
/// ``steps`` counts the nodes visited, so a test can see the work done without timing it.
struct OffsetMap<Value> {
    private var keys: [UInt64] = []
    private var values: [Value?] = []
    private var left: [Int32] = []
    private var right: [Int32] = []
    private var priorities: [UInt32] = []
    private var unused: [Int32] = []
    private var root: Int32 = -1
    /// A fixed seed: the same input always builds the same tree (reproducible fuzzing).
    private var seed: UInt32 = 0x9E37_79B9
    private(set) var count = 0
    /// Nodes visited by every operation so far.
    private(set) var steps = 0

    var isEmpty: Bool { count == 0 }

    /// The entry with the smallest key.
    mutating func min() -> (key: UInt64, value: Value)? {
        var node = root
        guard node >= 0 else { return nil }
        while left[Int(node)] >= 0 {
            steps += 1
            node = left[Int(node)]
        }
        steps += 1
        return (keys[Int(node)], values[Int(node)]!)
    }

    /// The entry with the largest key at most `key`.
    mutating func floor(_ key: UInt64) -> (key: UInt64, value: Value)? {
        var node = root
        var found: Int32 = -1
        while node >= 0 {
            steps += 1
            if keys[Int(node)] <= key {
                found = node
                node = right[Int(node)]
            } else {
                node = left[Int(node)]
            }
        }
        return found >= 0 ? (keys[Int(found)], values[Int(found)]!) : nil
    }

    /// The entry with the smallest key at least `key`.
    mutating func ceiling(_ key: UInt64) -> (key: UInt64, value: Value)? {
        var node = root
        var found: Int32 = -1
        while node >= 0 {
            steps += 1
            if keys[Int(node)] >= key {
                found = node
                node = left[Int(node)]
            } else {
                node = right[Int(node)]
            }
        }
        return found >= 0 ? (keys[Int(found)], values[Int(found)]!) : nil
    }

    /// Adds `value` under `key`, which must not be in the map.
    mutating func insert(_ key: UInt64, _ value: Value) {
        // xorshift32: cheap, and good enough to keep the expected depth logarithmic.
        seed ^= seed << 13
        seed ^= seed >> 17
        seed ^= seed << 5
        let node: Int32
        if let reused = unused.popLast() {
            node = reused
            keys[Int(node)] = key
            values[Int(node)] = value
            left[Int(node)] = -1
            right[Int(node)] = -1
            priorities[Int(node)] = seed
        } else {
            node = Int32(keys.count)
            keys.append(key)
            values.append(value)
            left.append(-1)
            right.append(-1)
            priorities.append(seed)
        }
        let (below, above) = split(root, key)
        root = merge(merge(below, node), above)
        count += 1
    }

    /// Removes the entry under `key` and returns its value.
    @discardableResult
    mutating func remove(_ key: UInt64) -> Value? {
        var parent: Int32 = -1
        var node = root
        while node >= 0, keys[Int(node)] != key {
            steps += 1
            parent = node
            node = key < keys[Int(node)] ? left[Int(node)] : right[Int(node)]
        }
        guard node >= 0 else { return nil }
        steps += 1
        let joined = merge(left[Int(node)], right[Int(node)])
        if parent < 0 {
            root = joined
        } else if left[Int(parent)] == node {
            left[Int(parent)] = joined
        } else {
            right[Int(parent)] = joined
        }
        let value = values[Int(node)]
        values[Int(node)] = nil
        unused.append(node)
        count -= 1
        if count == 0 { removeAll(keepingCapacity: keys.count <= 1024) }
        return value
    }

    /// Forgets every entry; the memory they took too, unless `keepingCapacity` (a stream that holds one segment at a
    /// time now and then should not allocate each time).
    mutating func removeAll(keepingCapacity: Bool = false) {
        keys.removeAll(keepingCapacity: keepingCapacity)
        values.removeAll(keepingCapacity: keepingCapacity)
        left.removeAll(keepingCapacity: keepingCapacity)
        right.removeAll(keepingCapacity: keepingCapacity)
        priorities.removeAll(keepingCapacity: keepingCapacity)
        unused.removeAll(keepingCapacity: keepingCapacity)
        root = -1
        count = 0
    }

    /// Splits the tree under `node` into keys below `key` and keys at or above it.
    private mutating func split(_ node: Int32, _ key: UInt64) -> (Int32, Int32) {
        guard node >= 0 else { return (-1, -1) }
        steps += 1
        if keys[Int(node)] < key {
            let (below, above) = split(right[Int(node)], key)
            right[Int(node)] = below
            return (node, above)
        } else {
            let (below, above) = split(left[Int(node)], key)
            left[Int(node)] = above
            return (below, node)
        }
    }

    /// Joins two trees whose keys are all smaller in `a` than in `b`.
    private mutating func merge(_ a: Int32, _ b: Int32) -> Int32 {
        guard a >= 0 else { return b }
        guard b >= 0 else { return a }
        steps += 1
        if priorities[Int(a)] > priorities[Int(b)] {
            right[Int(a)] = merge(right[Int(a)], b)
            return a
        } else {
            left[Int(b)] = merge(a, left[Int(b)])
            return b
        }
    }
}
