import ConformCore
import ConformMobileMessaging
import ConformReference
import ConformServer
import ConformTestSupport
import Foundation
import Testing

/// The server's own refusals are in the envelope of the handler's protocol: the reference's (Mobile Messaging's),
/// an adapter's as it is told, the neutral one for a handler that names none.
@Suite("Error envelopes of the server's refusals")
struct ErrorEnvelopeTests {
    /// The body of the reply to a request with two lengths, which the server refuses before any handler sees it.
    func refusalBody(_ handler: any HTTPHandler) throws -> JSONValue? {
        let server = try HTTPServer(handler: handler)
        try server.start()
        defer { server.stop() }
        let client = try RawClient(port: server.boundPort, receiveTimeoutSeconds: 20)
        client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 0\r\n\r\nhello")
        let reply = String(decoding: client.readAll(), as: UTF8.self)
        guard let split = reply.range(of: "\r\n\r\n") else { return nil }
        return try? JSONValue.parse(Data(reply[split.upperBound...].utf8))
    }

    @Test func theReferenceRefusesInTheMobileMessagingEnvelope() throws {
        let body = try #require(try refusalBody(ReferenceImplementation()))
        #expect(MobileMessaging.errorEnvelope.read(body)?.code == "BAD_REQUEST")
        #expect(body["requestError"]?["serviceException"]?["messageId"]?.stringValue == "BAD_REQUEST")
        #expect(ErrorEnvelope.neutral.read(body) == nil)
    }

    @Test func anAdapterRefusesInTheEnvelopeItIsGiven() throws {
        let adapter = AsyncHandlerAdapter(errorEnvelope: MobileMessaging.errorEnvelope) { _ in .empty(200) }
        let body = try #require(try refusalBody(adapter))
        #expect(MobileMessaging.errorEnvelope.read(body)?.code == "BAD_REQUEST")
    }

    @Test func aHandlerOfNoProtocolRefusesInTheNeutralEnvelope() throws {
        let body = try #require(try refusalBody(EchoHandler()))
        #expect(body["error"]?["code"]?.stringValue == "BAD_REQUEST")
        #expect(MobileMessaging.errorEnvelope.read(body) == nil)
    }

    @Test func aNestedEnvelopeReadsBackWhatItWrote() {
        let envelope = ErrorEnvelope.nested(["outer", "inner"], code: "id", text: "why")
        let body = envelope.body("E1", "what to fix")
        #expect(body == ["outer": ["inner": ["id": "E1", "why": "what to fix"]]])
        let read = envelope.read(body)
        #expect(read?.code == "E1" && read?.text == "what to fix")
        #expect(envelope.read(["outer": ["inner": ["id": "E1"]]]) == nil)
    }
}
