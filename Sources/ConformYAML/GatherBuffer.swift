/// The elements of one collection while the composer reads it: appended in place, then moved out into an array
/// of exactly their number, after which the buffer is empty and serves the next collection. Moving instead of
/// copying leaves no growth slack in the tree and no retain and release of each element.
final class GatherBuffer<Element> {
    private var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 8) {
        self.capacity = max(1, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    func append(_ element: consuming Element) {
        if count == capacity {
            let grown = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
            grown.moveInitialize(from: base, count: count)
            base.deallocate()
            base = grown
            capacity *= 2
        }
        (base + count).initialize(to: element)
        count += 1
    }

    /// Every element, moved into a new array of exactly `count`; the buffer is left empty.
    func takeAll() -> [Element] {
        let n = count
        guard n > 0 else { return [] }
        count = 0
        return [Element](unsafeUninitializedCapacity: n) { target, initialized in
            target.baseAddress!.moveInitialize(from: base, count: n)
            initialized = n
        }
    }
}
