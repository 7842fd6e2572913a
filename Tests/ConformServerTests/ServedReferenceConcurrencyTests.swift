import ConformCore
import ConformCurl
import ConformReference
import ConformServer
import Foundation
import Testing

/// Many devices personalizing, depersonalizing and taking the primary flag at once, over real connections.
@Suite struct ServedReferenceConcurrencyTests {
    static let app = "App conform-app-code"

    func register(_ transport: CurlTransport, _ base: String) async throws -> String {
        let body = Data(
            #"{"pushServiceToken":"t-\#(UUID().uuidString)","pushServiceType":"Firebase","os":"Android"}"#.utf8)
        let response = try await transport.send(
            HTTPRequest(
                method: .post, url: "\(base)/mobile/1/appinstance?ri=true",
                headerFields: ["Authorization": Self.app, "Content-Type": "application/json"], body: body))
        let json = try JSONValue.parse(response.body)
        return try #require(json["pushRegId"]?.stringValue)
    }

    @Test func interleavedPersonalizeDepersonalizeAndPrimaryKeepTheInvariants() async throws {
        let reference = ReferenceImplementation()
        let server = try HTTPServer(handler: reference)
        try server.start()
        defer { server.stop() }
        let base = server.baseURL
        let transport = CurlTransport(timeout: .seconds(20))
        var devices: [String] = []
        for _ in 0..<24 { devices.append(try await register(transport, base)) }
        let users = (0..<4).map { "user-\($0)-\(UUID().uuidString.prefix(8))" }
        let devicesList = devices
        let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
            for worker in 0..<32 {
                group.addTask {
                    var seen: [Int] = []
                    var rng = SystemRandomNumberGenerator()
                    for round in 0..<25 {
                        let device = devicesList[(worker + round * 7) % devicesList.count]
                        let headers: HTTPFields = [
                            "Authorization": Self.app, "pushregistrationid": device, "Content-Type": "application/json",
                        ]
                        let request: HTTPRequest
                        switch Int.random(in: 0..<4, using: &rng) {
                        case 0, 1:
                            let user = users.randomElement(using: &rng)!
                            let force = Bool.random(using: &rng)
                            let primary = Bool.random(using: &rng)
                            request = HTTPRequest(
                                method: .post,
                                url:
                                    "\(base)/mobile/1/appinstance/\(device)/personalize?forceDepersonalize=\(force)&keepAsLead=false&setDeviceAsPrimary=\(primary)",
                                headerFields: headers,
                                body: Data(#"{"userIdentity":{"externalUserId":"\#(user)"}}"#.utf8))
                        case 2:
                            request = HTTPRequest(
                                method: .post, url: "\(base)/mobile/1/appinstance/\(device)/depersonalize",
                                headerFields: headers)
                        default:
                            var patch = headers
                            patch["X-HTTP-Method-Override"] = "PATCH"
                            request = HTTPRequest(
                                method: .post, url: "\(base)/mobile/1/appinstance/\(device)", headerFields: patch,
                                body: Data(#"{"isPrimary":true}"#.utf8))
                        }
                        seen.append(try await transport.send(request).status.code)
                    }
                    return seen
                }
            }
            var all: [Int] = []
            for try await s in group { all += s }
            return all
        }
        #expect(statuses.count == 32 * 25)
        // Every answer is a success or a protocol refusal (D2), never a server error.
        #expect(statuses.allSatisfy { $0 == 200 || $0 == 400 })
        #expect(reference.checkInvariants() == [])
        let snapshot = reference.snapshot()
        for device in devices {
            #expect(snapshot.persons.filter { $0.installations.contains { $0.pushRegId == device } }.count == 1)
        }
        for person in snapshot.persons {
            #expect(person.installations.filter(\.isPrimary).count <= 1)
        }
    }
}
