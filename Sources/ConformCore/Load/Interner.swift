/// Values built while loading one file, each kept once: an equal value built again is replaced by the first, so
/// every step that writes the same status, header check or expected body shares one copy of its storage.
/// Holds at most `limit` values; past that, later values are looked up but not added.
struct Interner<Value: Hashable> {
    private var values: Set<Value> = []
    let limit: Int

    init(limit: Int = 1 << 16) { self.limit = limit }

    /// The first value equal to `value` (`value` itself if it is the first).
    mutating func intern(_ value: Value) -> Value {
        guard values.count < limit else { return values.firstIndex(of: value).map { values[$0] } ?? value }
        return values.insert(value).memberAfterInsert
    }
}

/// Named matchers (headers, query parameters) as one hashable value, so a list written on many steps is shared.
struct NamedMatcherList: Hashable {
    var items: [(name: String, value: MatchSpec)]

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.items.count == rhs.items.count
            && zip(lhs.items, rhs.items).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(items.count)
        for item in items {
            hasher.combine(item.name)
            hasher.combine(item.value)
        }
    }
}
