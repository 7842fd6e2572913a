import ConformCore
import ConformReference
import ConformYAML
import Foundation
import Testing

@Suite struct ConfigurationTests {
    /// The briefing's table, exactly, plus the access-restricted profile of D8.
    @Test func defaultApplications() {
        let c = ReferenceConfiguration.default
        #expect(c.applications.map(\.id) == ["default", "jwt", "restricted", "restricted-access"])
        #expect(c.application(id: "restricted-access")?.applicationCode == "conform-restricted-access-app-code")
        #expect(c.application(id: "restricted-access")?.apiKey == "conform-restricted-access-api-key")
        #expect(c.application(id: "restricted-access")?.userDataMode == .restrictedAccess)
        #expect(c.application(id: "default")?.applicationCode == "conform-app-code")
        #expect(c.application(id: "default")?.apiKey == "conform-api-key")
        #expect(c.application(id: "default")?.userDataMode == .all)
        #expect(c.application(id: "jwt")?.applicationCode == "conform-jwt-app-code")
        #expect(c.application(id: "jwt")?.apiKey == "conform-jwt-api-key")
        #expect(
            c.application(id: "jwt")?.jwtKeys == ["conform-kid": "636f6e666f726d2d6a77742d7365637265742d6b65792d3031"])
        #expect(c.application(id: "restricted")?.applicationCode == "conform-restricted-app-code")
        #expect(c.application(id: "restricted")?.apiKey == "conform-restricted-api-key")
        #expect(c.application(id: "restricted")?.userDataMode == .restricted)
        #expect(c.tagKey == "tags")
    }

    static let yaml = """
        tagKey: segments
        seed: fixed
        applications:
          - id: shop
            applicationCode: shop-code
            apiKey: shop-key
            userDataMode: jwt
            jwtKeys:
              k1: "00112233"
          - id: open
            applicationCode: open-code
            apiKey: open-key
        """

    @Test func loadsYAML() throws {
        let c = try ReferenceConfiguration.parse(Array(Self.yaml.utf8), file: "ref.yaml", json: false)
        #expect(c.tagKey == "segments")
        #expect(c.seed == "fixed")
        #expect(c.applications.count == 2)
        #expect(c.application(code: "shop-code")?.userDataMode == .jwt)
        #expect(c.application(code: "shop-code")?.jwtKeys == ["k1": "00112233"])
        #expect(c.application(apiKey: "open-key")?.userDataMode == .all)
    }

    @Test func loadsJSONFile() throws {
        let json = """
            {"applications":[{"id":"a","applicationCode":"c","apiKey":"k","userDataMode":"restricted"}],"baseURL":"http://x"}
            """
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ref-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let c = try ReferenceConfiguration.load(contentsOf: url)
        #expect(c.application(id: "a")?.userDataMode == .restricted)
        #expect(c.baseURL == "http://x")
    }

    /// Every problem is reported, each at its file:line:col.
    @Test func reportsEveryProblemWithPositions() {
        let text = """
            applications:
              - id: a
                applicationCode: c
                userDataMode: sometimes
                extra: 1
              - id: b
                applicationCode: d
                apiKey: k
                userDataMode: jwt
            """
        do {
            _ = try ReferenceConfiguration.parse(Array(text.utf8), file: "bad.yaml", json: false)
            Issue.record("expected a failure")
        } catch {
            let lines = error.diagnostics.map(\.description)
            #expect(lines.contains("bad.yaml:2:5: error: $.applications[0]: missing 'apiKey'"))
            #expect(
                lines.contains("bad.yaml:4:19: error: $.applications[0].userDataMode: unknown userDataMode 'sometimes'")
            )
            #expect(lines.contains("bad.yaml:5:12: error: $.applications[0].extra: unknown key 'extra'"))
            #expect(
                lines.contains(
                    "bad.yaml:6:5: error: $.applications[1]: a jwt application needs at least one key in 'jwtKeys'"))
            #expect(error.diagnostics.allSatisfy { $0.help != nil })
        }
    }

    @Test func jsonSyntaxErrorHasPosition() {
        do {
            _ = try ReferenceConfiguration.parse(
                Array("{\n  \"applications\": [,]\n}".utf8), file: "c.json", json: true)
            Issue.record("expected a failure")
        } catch {
            #expect(error.diagnostics.count == 1)
            #expect(error.diagnostics[0].file == "c.json")
            #expect(error.diagnostics[0].mark?.line == 2)
        }
    }

    @Test func missingFileAndEmptyConfiguration() {
        #expect(throws: YAMLParseFailure.self) {
            try ReferenceConfiguration.load(contentsOf: URL(fileURLWithPath: "/nonexistent/ref.yaml"))
        }
        #expect(throws: YAMLParseFailure.self) { try ReferenceConfiguration.parse([], file: "e.yaml", json: false) }
        #expect(throws: YAMLParseFailure.self) {
            try ReferenceConfiguration.parse(Array("applications: []".utf8), file: "e.yaml", json: false)
        }
        #expect(throws: YAMLParseFailure.self) {
            try ReferenceConfiguration.parse(
                Array("{\"applications\":[{\"id\":\"a\",\"applicationCode\":\"x\",\"apiKey\":\"x\"}]}".utf8),
                file: "e.json", json: true)
        }
    }

    /// A loaded configuration drives the reference: the custom tag key and a seeded, reproducible run.
    @Test func loadedConfigurationDrivesTheReference() throws {
        let c = try ReferenceConfiguration.parse(Array(Self.yaml.utf8), file: "ref.yaml", json: false)
        let h1 = Harness(configuration: c)
        let h2 = Harness(configuration: c)
        let a = h1.register(code: "open-code")
        #expect(a == h2.register(code: "open-code"))
        h1.personalize(
            a, code: "open-code", body: ["userIdentity": ["externalUserId": "u"], "userAttributes": ["tags": ["vip"]]])
        #expect(h1.push(to: ["segments": "vip"], key: "open-key", from: "open-code").bulk?["messageCount"] == 1)
        #expect(h1.push(to: ["tags": "vip"], key: "open-key", from: "open-code").bulk?["messageCount"] == 0)
    }
}
