/// A JSON value that keeps object key order and tells integers from other numbers.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The JSON type name used in diagnostics and `$type` matchers.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }
    public var isNull: Bool { self == .null }

    /// Integers and other numbers as a `Double`.
    public var numberValue: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    /// The member `key` of an object, or `nil`.
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// The element at `index` of an array, or `nil`.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }

    /// Scalars as text (strings unquoted), containers as compact JSON.
    public var text: String {
        switch self {
        case .string(let s): s
        case .null: "null"
        default: serialized()
        }
    }
}

/// A JSON object whose members keep the order in which they were written.
///
/// The members are kept in written order in one array; a key index is built only once an object has more than
/// ``indexedCount`` members, so the small objects of request and answer bodies are read and written without hashing
/// their keys. Equality and hashing ignore the order, as for a dictionary.
public struct JSONObject: Sendable, Hashable, Sequence {
    private var members: [(key: String, value: JSONValue)] = []
    /// Where each key is in `members`, kept only above ``indexedCount`` members.
    private var positions: [String: Int]?

    /// Above this many members an object keeps an index of its keys.
    static let indexedCount = 12

    public init() {}

    public init(_ pairs: [(String, JSONValue)]) {
        members.reserveCapacity(pairs.count)
        for (k, v) in pairs { self[k] = v }
    }

    /// The keys in written order.
    public var keys: [String] { members.map(\.key) }
    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var dictionary: [String: JSONValue] {
        Dictionary(members.lazy.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        var i = 0
        while i < members.count {
            if members[i].key == key { return i }
            i += 1
        }
        return nil
    }

    private mutating func reindex() {
        guard members.count > Self.indexedCount else {
            positions = nil
            return
        }
        var index: [String: Int] = [:]
        index.reserveCapacity(members.count)
        for (i, member) in members.enumerated() { index[member.key] = i }
        positions = index
    }

    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            if let newValue {
                if let i = position(of: key) {
                    members[i].value = newValue
                } else {
                    members.append((key, newValue))
                    if positions != nil {
                        positions?[key] = members.count - 1
                    } else if members.count > Self.indexedCount {
                        reindex()
                    }
                }
            } else if let i = position(of: key) {
                members.remove(at: i)
                if members.count <= Self.indexedCount {
                    positions = nil
                } else if positions != nil {
                    // The members after the removed one moved up by one place.
                    positions?[key] = nil
                    for j in i..<members.count { positions?[members[j].key] = j }
                }
            }
        }
    }

    public func makeIterator() -> Iterator { Iterator(object: self) }

    /// The members in written order.
    public struct Iterator: IteratorProtocol {
        let object: JSONObject
        var index = 0

        public mutating func next() -> (key: String, value: JSONValue)? {
            guard index < object.members.count else { return nil }
            defer { index += 1 }
            return object.members[index]
        }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for member in lhs.members {
            guard let other = rhs[member.key], other == member.value else { return false }
        }
        return true
    }

    /// Independent of the members' order, as equality is.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for member in members {
            var each = Hasher()
            each.combine(member.key)
            each.combine(member.value)
            combined ^= each.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(combined)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
}
