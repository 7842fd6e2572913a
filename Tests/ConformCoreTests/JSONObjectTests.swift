import ConformCore
import Testing

/// `JSONObject` keeps small objects as a list of members and indexes its keys only above a dozen: either way it
/// keeps the written order, the first place of a key written twice with its last value, and equality and hashing that
/// ignore the order.
@Suite struct JSONObjectTests {
    /// Objects of 3, 12, 13 and 40 members: below, at and above the size where the index starts.
    @Test(arguments: [3, 12, 13, 40])
    func keepsOrderAndFindsEveryMember(count: Int) {
        var object = JSONObject()
        for i in (0..<count).reversed() { object["k\(i)"] = .int(i) }
        #expect(object.count == count)
        #expect(object.keys == (0..<count).reversed().map { "k\($0)" })
        for i in 0..<count { #expect(object["k\(i)"] == .int(i)) }
        #expect(object["k\(count)"] == nil)
        // A key written again keeps its place and takes the new value.
        object["k0"] = "again"
        #expect(object.keys.last == "k0")
        #expect(object["k0"] == "again")
        #expect(object.count == count)
        #expect(Array(object).map(\.key) == object.keys)
        #expect(object.dictionary.count == count)
    }

    @Test(arguments: [3, 13, 40])
    func removingAMemberKeepsTheRestFindable(count: Int) {
        var object = JSONObject((0..<count).map { ("k\($0)", JSONValue.int($0)) })
        object["k1"] = nil
        object["absent"] = nil
        #expect(object.count == count - 1)
        #expect(object["k1"] == nil)
        for i in 0..<count where i != 1 { #expect(object["k\(i)"] == .int(i), "k\(i)") }
        #expect(object.keys == (0..<count).filter { $0 != 1 }.map { "k\($0)" })
        object["k1"] = "back"
        #expect(object.keys.last == "k1")
        #expect(object["k1"] == "back")
    }

    /// Equal members in another order are equal and hash alike; another value or another member is not equal.
    @Test(arguments: [3, 20])
    func equalityAndHashIgnoreOrder(count: Int) {
        let pairs = (0..<count).map { ("k\($0)", JSONValue.string("v\($0)")) }
        let forward = JSONObject(pairs)
        let backward = JSONObject(pairs.reversed())
        #expect(forward == backward)
        #expect(forward.hashValue == backward.hashValue)
        #expect(Set([JSONValue.object(forward), .object(backward)]).count == 1)
        var changed = backward
        changed["k0"] = "other"
        #expect(forward != changed)
        var more = backward
        more["extra"] = .null
        #expect(forward != more)
        var fewer = backward
        fewer["k0"] = nil
        #expect(forward != fewer)
        #expect(JSONObject() == JSONObject())
    }

    /// A parsed object with a repeated key keeps its first place and last value, as the writer shows it.
    @Test func aRepeatedKeyInTextKeepsItsFirstPlace() throws {
        let value = try JSONValue.parse(#"{"a":1,"b":2,"a":3}"#)
        #expect(value.serialized() == #"{"a":3,"b":2}"#)
    }
}
