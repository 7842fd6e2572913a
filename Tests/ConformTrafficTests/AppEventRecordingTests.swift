import ConformCore
import ConformMobileMessaging
import ConformReference
import ConformTestSupport
import Foundation
import Synchronization
import Testing

@testable import ConformFlowCheck
@testable import ConformProxy
@testable import ConformTraffic

/// App events in recordings, HAR files, events files and the recording proxy's reserved path.
@Suite struct AppEventRecordingTests {
    static let t0 = Date(timeIntervalSince1970: 1_767_600_000)

    static func sampleExchange(_ seq: Int) -> RecordedExchange {
        exchange(
            seq: seq, url: "http://mobile.conform.invalid/mobile/1/appinstance", responseBody: #"{"pushRegId":"d"}"#)
    }

    @Test func eventsKeepTheirPlaceAmongExchanges() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try RecordingWriter(directory: dir)
        let first = Self.sampleExchange(1)
        try writer.append(
            upstream: "mobile", request: first.request, response: first.response, startedAt: Self.t0, durationMs: 2)
        let event = try writer.append(
            event: AppEvent(kind: .login, at: Self.t0, pushRegId: "d", externalUserId: "cust-ana"))
        #expect(event.seq == 2)
        try writer.append(
            upstream: "mobile", request: first.request, response: first.response, startedAt: Self.t0, durationMs: 2)
        writer.close()
        let line = try String(contentsOfFile: dir + "/exchanges.jsonl", encoding: .utf8).split(separator: "\n")[1]
        #expect(
            line
                == #"{"seq":2,"event":"login","at":"2026-01-05T08:00:00.000Z","pushRegId":"d","externalUserId":"cust-ana"}"#
        )

        let reader = try RecordingReader(path: dir)
        var records: [TraceRecord] = []
        while let record = try reader.nextRecord() { records.append(record) }
        #expect(records.map(\.seq) == [1, 2, 3])
        #expect(records[1] == .event(event))
        let exchanges = try RecordingReader(path: dir)
        var seqs: [Int] = []
        while let e = try exchanges.next() { seqs.append(e.seq) }
        #expect(seqs == [1, 3], "readers of exchanges (replay, diff) skip events")

        let appended = try RecordingWriter(directory: dir, append: true)
        #expect(try appended.append(event: AppEvent(kind: .logout, at: Self.t0)).seq == 4)
        appended.close()
    }

    @Test func eventsSurviveHARExportAndImport() throws {
        let exchanges = [Self.sampleExchange(1), Self.sampleExchange(3)]
        let events = [
            AppEvent(seq: 2, kind: .sessionExpired, at: Self.t0, pushRegId: "d"),
            AppEvent(seq: 4, kind: .appUpdated, at: Self.t0, externalUserId: "cust-ana"),
        ]
        let har = HAR.export(exchanges, events: events)
        let text = String(decoding: har, as: UTF8.self)
        #expect(text.contains(#""_conformEvents": ["#))
        #expect(try importedHAR(har) == exchanges, "other tools see only the entries")
        #expect(
            try importedHARTrace(har)
                == [.exchange(exchanges[0]), .event(events[0]), .exchange(exchanges[1]), .event(events[1])])
    }

    @Test func aBrokenEventInAHARNamesItsPath() {
        let har = Data(
            #"{"log":{"entries":[],"_conformEvents":[{"seq":1,"event":"logut","at":"2026-01-05T08:00:00Z"}]}}"#.utf8)
        #expect(throws: HARError.self) { try importedHARTrace(har, file: "app.har") }
        do {
            _ = try importedHARTrace(har, file: "app.har")
        } catch {
            #expect(error.description.hasPrefix("app.har: error: $.log._conformEvents[0].event: unknown event 'logut'"))
        }
    }

    @Test func eventsFileLoadsAndReportsLineAndColumn() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let good = dir + "/events.jsonl"
        try Data(
            """
            {"event":"login","at":"2026-01-05T08:00:00.000Z","pushRegId":"d","externalUserId":"cust-ana"}

            {"event":"logout","at":"2026-01-05T09:00:00+01:00"}

            """.utf8
        ).write(to: URL(fileURLWithPath: good))
        let events = try AppEventsFile.load(path: good)
        #expect(events.map(\.kind) == [.login, .logout])
        #expect(events[1].at == Self.t0)
        #expect(events[1].pushRegId == nil)

        let bad = dir + "/bad.jsonl"
        try Data(
            """
            {"event":"logout","at":"2026-01-05T08:00:00Z"}
            {"event":"login","at":"2026-01-05T08:00:00Z"}

            """.utf8
        ).write(to: URL(fileURLWithPath: bad))
        #expect(throws: RecordingError.self) { try AppEventsFile.load(path: bad, displayName: "bad.jsonl") }
        do {
            _ = try AppEventsFile.load(path: bad, displayName: "bad.jsonl")
        } catch {
            #expect(
                error.description.hasPrefix(
                    "bad.jsonl:2:1: error: invalid event at $.externalUserId: login needs the user's externalUserId"))
        }
        let syntax = dir + "/syntax.jsonl"
        try Data(#"{"event":"logout",}"#.utf8).write(to: URL(fileURLWithPath: syntax))
        do {
            _ = try AppEventsFile.load(path: syntax, displayName: "syntax.jsonl")
            Issue.record("a syntax error must fail")
        } catch {
            #expect(error.description.hasPrefix("syntax.jsonl:1:19: error: invalid event"))
        }
    }

    @Test func eventIdentifiersAreBounded() {
        let long = String(repeating: "x", count: AppEvent.maxIdentifierLength + 1)
        #expect(throws: RecordingLineError.self) {
            try AppEvent(json: ["event": "login", "at": "2026-01-05T08:00:00Z", "externalUserId": .string(long)])
        }
        #expect(throws: RecordingLineError.self) {
            try AppEvent(json: ["event": "logout", "at": "2026-01-05T08:00:00Z", "seq": -1])
        }
    }

    /// Counts what reaches the upstream.
    final class CountingTransport: Transport {
        let inner: any Transport
        let count = Mutex(0)
        init(_ inner: any Transport) { self.inner = inner }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            count.withLock { $0 += 1 }
            return try await inner.send(request)
        }
    }

    @Test func theProxyRecordsPostedEventsAndNeverForwardsThem() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try RecordingWriter(directory: dir)
        let upstream = CountingTransport(InProcessTransport(ReferenceImplementation()))
        let seen = Mutex<[AppEvent]>([])
        let proxy = RecordingProxy(
            upstreams: ["*": "http://reference.conform.invalid"], transport: upstream, writer: writer,
            onEvent: { event in seen.withLock { $0.append(event) } }, profile: .mobileMessaging)
        func post(_ path: String, _ body: String, reg: String? = nil, method: HTTPMethod = .post) async -> HTTPResponse
        {
            var headers: HTTPFields = ["Authorization": "App conform-app-code", "Content-Type": "application/json"]
            if let reg { headers["pushregistrationid"] = reg }
            return await proxy.forward(
                HTTPRequest(method: method, url: path, headerFields: headers, body: Data(body.utf8)))
        }
        let registered = await post(
            "/mobile/1/appinstance?ri=true", #"{"pushServiceToken":"t","pushServiceType":"Firebase"}"#)
        let id = try JSONValue.parse(registered.body)["pushRegId"]?.stringValue ?? "?"
        _ = await post(
            "/mobile/1/appinstance/\(id)/personalize?forceDepersonalize=false&keepAsLead=false&setDeviceAsPrimary=false",
            #"{"userIdentity":{"externalUserId":"cust-ana"}}"#, reg: id)
        let answer = await post(RecordingProxy.eventsPath, #"{"event":"logout","pushRegId":"\#(id)"}"#)
        #expect(answer.status.code == 200)
        #expect(try JSONValue.parse(answer.body)["recorded"]?[0]?["seq"] == .int(3))
        _ = await post("/mobile/1/appinstance/\(id)/user", #"{"firstName":"Ana"}"#, reg: id, method: .patch)
        #expect(upstream.count.withLock { $0 } == 3, "the event was not forwarded")
        #expect(seen.withLock { $0.map(\.kind) } == [.logout])

        let refused = await post(RecordingProxy.eventsPath, #"[{"event":"logout"},{"event":"dance"}]"#)
        #expect(refused.status.code == 400)
        #expect(
            MobileMessaging.errorEnvelope.read(try JSONValue.parse(refused.body))?.text
                == "conform: $[1].event: unknown event 'dance'; expected one of login, logout, sessionExpired, appUpdated, personalizeFailed"
        )
        #expect(await post(RecordingProxy.eventsPath, "", method: .get).status.code == 405)
        #expect(await post(RecordingProxy.eventsPath, "not json").status.code == 400)
        writer.close()

        let result = try await FlowChecker.check(
            recording: try Trace.open(dir).records(), configuration: .reference)
        #expect(result.violations.map(\.rule) == [.logoutDepersonalize])
        #expect(result.violations.first?.seq == 4)
    }

    @Test func redactionTreatsTheEventsUserAsTheBodiesUser() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try RecordingWriter(
            directory: dir, redaction: RedactionPolicy(profile: .mobileMessaging, patterns: ["cust-[a-z]+"]))
        let request = HTTPRequest(
            method: .post, url: "http://m/mobile/1/appinstance/d/personalize", headerFields: [:],
            body: Data(#"{"userIdentity":{"externalUserId":"cust-ana"}}"#.utf8))
        let written = try writer.append(
            upstream: "mobile", request: request, response: HTTPResponse(status: 200), startedAt: Self.t0,
            durationMs: 1)
        let event = try writer.append(event: AppEvent(kind: .login, at: Self.t0, externalUserId: "cust-ana"))
        writer.close()
        let user = try JSONValue.parse(written.request.body)["userIdentity"]?["externalUserId"]?.stringValue
        #expect(user != "cust-ana")
        #expect(event.externalUserId == user)
    }

    /// An email, a phone number or a JWT posted as an event's pushRegId is redacted like the same text in a body, so
    /// `conform scan` finds nothing in the recorder's own output.
    @Test(arguments: [
        "ana.kovac@mail.example.org", "+385 91 234 5678",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbmEifQ.c2lnbmF0dXJlc2lnbmF0dXJl",
    ])
    func everyEventFieldIsRedacted(secret: String) throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try RecordingWriter(directory: dir)
        let event = try writer.append(
            event: AppEvent(kind: .login, at: Self.t0, pushRegId: secret, externalUserId: "user \(secret)"))
        writer.close()
        #expect(event.pushRegId != secret)
        #expect(event.externalUserId?.contains(secret) == false)
        let text = try String(contentsOfFile: dir + "/exchanges.jsonl", encoding: .utf8)
        #expect(!text.contains(secret))
        #expect(try SecretScanner(profile: .mobileMessaging).scan(paths: [dir]).isEmpty)
    }
}
