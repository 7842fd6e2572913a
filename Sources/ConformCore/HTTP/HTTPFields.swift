/// An ordered list of header fields that keeps duplicates and raw names, looked up case-insensitively.
public struct HTTPFields: Sendable, Hashable, Codable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field as it was sent: raw name and value.
    public struct Field: Sendable, Hashable, Codable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var fields: [Field]

    public init(_ fields: [Field] = []) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value of `name`, compared case-insensitively.
    public subscript(name: String) -> String? {
        get {
            let key = name.lowercased()
            return fields.first { $0.name.lowercased() == key }?.value
        }
        set {
            let key = name.lowercased()
            fields.removeAll { $0.name.lowercased() == key }
            if let newValue { fields.append(Field(name: name, value: newValue)) }
        }
    }

    /// Every value of `name`, in order, compared case-insensitively.
    public func values(for name: String) -> [String] {
        let key = name.lowercased()
        return fields.filter { $0.name.lowercased() == key }.map(\.value)
    }

    /// Appends a field, keeping any earlier field of the same name.
    public mutating func append(name: String, value: String) { fields.append(Field(name: name, value: value)) }

    /// Removes every field of `name`.
    public mutating func remove(_ name: String) {
        let key = name.lowercased()
        fields.removeAll { $0.name.lowercased() == key }
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    public init(from decoder: Decoder) throws {
        self.fields = try [Field](from: decoder)
    }

    public func encode(to encoder: Encoder) throws { try fields.encode(to: encoder) }
}
