import ConformCore
import Testing

/// `HTTPFields.endToEnd`: what a proxy relays and a replay sends of a message's fields (RFC 9110 section 7.6.1).
@Suite struct EndToEndFieldsTests {
    @Test func connectionFieldsAndTheNamesConnectionListsGoInAnyCase() {
        let fields = HTTPFields([
            .init(name: "HOST", value: "api.example.test"),
            .init(name: "X-Kept", value: "1"),
            .init(name: "connection", value: "Keep-Alive, x-hop ,Upgrade"),
            .init(name: "keep-alive", value: "timeout=5"),
            .init(name: "X-HOP", value: "gone"),
            .init(name: "Authorization", value: "App code"),
            .init(name: "Content-Length", value: "2"),
            .init(name: "Transfer-Encoding", value: "chunked"),
            .init(name: "TE", value: "trailers"),
            .init(name: "x-hop", value: "gone too"),
            .init(name: "X-Hopper", value: "a longer name stays"),
            .init(name: "x-kept", value: "2"),
        ])
        #expect(
            fields.endToEnd.fields.map { "\($0.name): \($0.value)" } == [
                "X-Kept: 1", "Authorization: App code", "X-Hopper: a longer name stays", "x-kept: 2",
            ])
    }

    @Test func fieldsWithNothingOfTheConnectionStayAsTheyAre() {
        let fields = HTTPFields([.init(name: "Content-Type", value: "application/json"), .init(name: "X-A", value: "")])
        #expect(fields.endToEnd == fields)
        #expect(HTTPFields().endToEnd.isEmpty)
    }

    @Test func onlyConnectionSpecificFieldsLeaveNothing() {
        let fields = HTTPFields([.init(name: "Host", value: "h"), .init(name: "Connection", value: "close")])
        #expect(fields.endToEnd.isEmpty)
    }

    /// Each connection-specific name goes whatever its case, and names of the same lengths that are not one stay.
    @Test func everyConnectionSpecificNameGoesInAnyCase() {
        var fields: [HTTPFields.Field] = []
        for name in HTTPFields.connectionSpecific {
            fields.append(.init(name: name.uppercased(), value: "x"))
            fields.append(.init(name: name.prefix(1).uppercased() + name.dropFirst(), value: "x"))
            fields.append(.init(name: String(repeating: "z", count: name.utf8.count), value: "kept"))
        }
        let kept = HTTPFields(fields).endToEnd
        #expect(kept.count == HTTPFields.connectionSpecific.count)
        #expect(kept.fields.allSatisfy { $0.value == "kept" })
    }

}
