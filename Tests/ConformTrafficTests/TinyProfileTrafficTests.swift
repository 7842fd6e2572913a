import ConformCore
import ConformMobileMessaging
import ConformTestSupport
import Foundation
import Synchronization
import Testing

@testable import ConformFlowCheck
@testable import ConformReplay
@testable import ConformTraffic

/// The tiny protocol's server (``ProtocolProfile/tinyTraffic``): `POST /api/v1/sessions` opens a session under an id
/// of its own minting, `GET /api/v1/sessions/{id}` reads one (404 for an id it never minted), `GET /admin/stats`
/// counts them. Two servers mint different ids, so a replay passes only when it maps the recorded ids to live ones.
final class TinyHandler: HTTPHandler {
    private let prefix = UUID().uuidString.prefix(8)
    private let sessions = Mutex<[String]>([])

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        if request.method == .post, parts == ["api", "v1", "sessions"] {
            let id = sessions.withLock { sessions in
                sessions.append("s-\(prefix)-\(sessions.count + 1)")
                return sessions[sessions.count - 1]
            }
            return .json(201, ["sessionId": .string(id)])
        }
        if request.method == .get, parts.count == 4, parts.prefix(3) == ["api", "v1", "sessions"] {
            guard sessions.withLock({ $0.contains(parts[3]) }) else {
                return .json(404, ["fault": ["id": "NO_SESSION", "reason": .string("no session \(parts[3])")]])
            }
            return .json(200, ["sessionId": .string(parts[3]), "open": true])
        }
        if request.method == .get, parts == ["admin", "stats"] {
            return .json(200, ["sessions": .int(sessions.withLock { $0.count })])
        }
        return .json(404, ["fault": ["id": "NOT_FOUND", "reason": "no such endpoint"]])
    }
}

/// Recording, HAR import, replay and the check work on a protocol that is not Mobile Messaging: its bases name the
/// upstreams, its ids name the flows, and no `mobile`, `backend` or pushRegId appears anywhere.
@Suite struct TinyProfileTrafficTests {
    static let profile = ProtocolProfile.tinyTraffic

    /// Two sessions opened and read, the second read naming its session in a header only, and an admin call.
    static let requests = [
        HTTPRequest(method: .post, url: "/api/v1/sessions"),
        HTTPRequest(method: .post, url: "/api/v1/sessions"),
        HTTPRequest(method: .get, url: "/api/v1/sessions/{1}"),
        HTTPRequest(method: .get, url: "/api/v1/sessions/{2}", headerFields: ["X-Tiny-Session": "{2}"]),
        HTTPRequest(method: .get, url: "/admin/stats"),
    ]

    /// The tiny traffic against `handler`, written by a recorder of the tiny profile into `dir`; each `{n}` is the
    /// id the n-th session was given.
    static func record(into dir: String, handler: TinyHandler) throws -> [RecordedExchange] {
        let writer = try RecordingWriter(directory: dir, profile: profile, redaction: RedactionPolicy(profile: profile))
        defer { writer.close() }
        var minted: [String] = []
        var written: [RecordedExchange] = []
        for var request in requests {
            for (n, id) in minted.enumerated() {
                request.url = request.url.replacingOccurrences(of: "{\(n + 1)}", with: id)
                for field in request.headerFields where field.value == "{\(n + 1)}" {
                    request.headerFields[field.name] = id
                }
            }
            let response = handler.handle(request)
            if let id = try? JSONValue.parse(response.body)["sessionId"]?.stringValue, request.method == .post {
                minted.append(id)
            }
            written.append(
                try writer.append(
                    upstream: profile.upstream(forPath: request.path), request: request, response: response,
                    startedAt: Date(), durationMs: 1))
        }
        return written
    }

    @Test func theRecorderNamesUpstreamsAndFlowsByTheProfile() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recorded = try Self.record(into: dir, handler: TinyHandler())
        let ids = recorded.prefix(2).compactMap { try? JSONValue.parse($0.response.body)["sessionId"]?.stringValue }
        #expect(ids.count == 2)
        #expect(recorded.map(\.upstream) == ["api", "api", "api", "api", "admin"])
        #expect(recorded.map(\.flow) == ids + ids + ["admin"])
        // Mobile Messaging's keys find nothing of the tiny protocol.
        let mm = ProtocolProfile.mobileMessaging
        #expect(
            recorded.map { mm.flows.flow(request: $0.request, response: $0.response) }.allSatisfy { $0 == "anonymous" })
        #expect(mm.upstream(forPath: "/api/v1/sessions") == "backend")
        #expect(ProtocolProfile.none.upstream(forPath: "/api/v1/sessions") == "*")
    }

    @Test func aHARFromAnotherToolIsImportedWithTheProfilesUpstreamsAndFlows() async throws {
        let entries = [
            ("POST", "/api/v1/sessions", [String: String](), #"{\"sessionId\":\"s-har-1\"}"#),
            ("GET", "/api/v1/sessions/s-har-1", [:], #"{\"open\":true}"#),
            ("GET", "/api/v1/whoami", ["X-Tiny-Session": "s-har-2"], "{}"),
            ("GET", "/admin/stats", [:], #"{\"sessions\":2}"#),
            ("GET", "/admin/sessions/s-har-1", [:], "{}"),
            ("GET", "/api/v1/health", [:], "{}"),
        ].map { method, path, headers, body in
            let fields = headers.map { #"{"name":"\#($0.key)","value":"\#($0.value)"}"# }.joined(separator: ",")
            return #"{"startedDateTime":"2026-01-05T10:00:00.000Z","time":1,"#
                + #""request":{"method":"\#(method)","url":"https://tiny.example\#(path)","headers":[\#(fields)]},"#
                + #""response":{"status":200,"headers":[],"content":{"mimeType":"application/json","#
                + #""text":"\#(body)"}}}"#
        }
        let har = Data(
            #"{"log":{"version":"1.2","creator":{"name":"browser"},"entries":[\#(entries.joined(separator: ","))]}}"#
                .utf8)
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = (dir as NSString).appendingPathComponent("tiny.har")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try har.write(to: URL(fileURLWithPath: file))

        func read(_ profile: ProtocolProfile) throws -> [RecordedExchange] {
            try HARDocument(har, file: "tiny.har", profile: profile).records().all().compactMap {
                if case .exchange(let e) = $0 { return e }
                return nil
            }
        }
        let tiny = try read(Self.profile)
        #expect(tiny.map(\.upstream) == ["api", "api", "api", "admin", "admin", "api"])
        #expect(tiny.map(\.flow) == ["s-har-1", "s-har-1", "s-har-2", "admin", "s-har-1", "anonymous"])
        // The trace a command opens reads the same, and with no profile nothing is named after any protocol.
        let opened = try await Trace.open(file, profile: Self.profile).exchanges().all()
        #expect(opened.map(\.flow) == tiny.map(\.flow))
        let neutral = try read(.none)
        #expect(neutral.map(\.upstream) == Array(repeating: "*", count: 6))
        #expect(neutral.map(\.flow) == Array(repeating: "anonymous", count: 6))
    }

    @Test func aReplayMapsTheProfilesIdsAndKeepsEachSessionsOrder() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Self.record(into: dir, handler: TinyHandler())
        var options = ReplayOptions(profile: Self.profile)
        options.sharedFlow = Self.profile.flows.sharedFlow
        let summary = try await Replayer(transport: InProcessTransport(TinyHandler()), options: options)
            .replay(try Trace.open(dir))
        #expect(summary.mismatches.map(\.description) == [])
        #expect((summary.total, summary.passed) == (5, 5))
        // Without the protocol's minted key the live ids are not learned: the sessions opened and the reads of the
        // recorded ids differ, and only the count of sessions is the same.
        var unmappedOptions = ReplayOptions(profile: Self.profile)
        unmappedOptions.minted = .none
        unmappedOptions.sharedFlow = Self.profile.flows.sharedFlow
        let unmapped = try await Replayer(transport: InProcessTransport(TinyHandler()), options: unmappedOptions)
            .replay(try Trace.open(dir))
        #expect((unmapped.total, unmapped.passed, unmapped.mismatched) == (5, 1, 4))
    }

    @Test func theCheckClassifiesTheTraceWithTheProfileAlone() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recorded = try Self.record(into: dir, handler: TinyHandler())
        let configuration = FlowCheckConfiguration(profile: Self.profile)
        #expect(recorded.map { configuration.endpoints.classify($0.request)?.id } == [nil, nil, nil, nil, nil])
        #expect(FlowChecker.check(recorded, configuration: configuration) == [])
    }
}
