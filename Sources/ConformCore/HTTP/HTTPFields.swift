/// An ordered list of header fields that keeps duplicates and raw names, looked up case-insensitively.
public struct HTTPFields: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field as it was sent: raw name and value.
    public struct Field: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var fields: [Field]

    /// The most fields one message may have when read from a recording or a HAR (1,000; real messages carry a few
    /// dozen): a message over it is read without its fields and marked, so no reader or comparison works through
    /// an unbounded list.
    public static let maxCount = 1_000

    public init(_ fields: [Field] = []) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value of `name`, compared case-insensitively.
    public subscript(name: String) -> String? {
        get { fields.first { HTTPFields.sameName($0.name, name) }?.value }
        set {
            fields.removeAll { HTTPFields.sameName($0.name, name) }
            if let newValue { fields.append(Field(name: name, value: newValue)) }
        }
    }

    /// Every value of `name`, in order, compared case-insensitively.
    public func values(for name: String) -> [String] {
        fields.filter { HTTPFields.sameName($0.name, name) }.map(\.value)
    }

    /// Compares header names ignoring ASCII case, without allocating.
    public static func sameName(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        // Native strings are compared on their bytes: every request looks up a few fields among its own.
        let contiguous = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                for i in 0..<x.count where x[i] != y[i] {
                    let lower = x[i] | 0x20
                    if lower != y[i] | 0x20 || lower < UInt8(ascii: "a") || lower > UInt8(ascii: "z") { return false }
                }
                return true
            }
        }
        if let contiguous, let contiguous { return contiguous }
        var x = a.utf8.makeIterator()
        var y = b.utf8.makeIterator()
        while true {
            switch (x.next(), y.next()) {
            case (nil, nil): return true
            case (let p?, let q?):
                if p == q { continue }
                let lp = p | 0x20
                if lp != q | 0x20 || lp < UInt8(ascii: "a") || lp > UInt8(ascii: "z") { return false }
            default: return false
            }
        }
    }

    /// Appends a field, keeping any earlier field of the same name.
    public mutating func append(name: String, value: String) { fields.append(Field(name: name, value: value)) }

    /// Removes every field of `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { HTTPFields.sameName($0.name, name) }
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }
}
