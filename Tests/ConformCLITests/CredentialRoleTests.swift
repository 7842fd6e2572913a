import ConformCLI
import ConformCore
import ConformCurl
import ConformMobileMessaging
import ConformReference
import ConformReport
import ConformServer
import ConformTestSupport
import ConformTraffic
import Foundation
import Testing

/// Credential roles of a redacted recording: its metadata names each role's pseudonym, `check` matches an application
/// code given in clear through it, and `replay --credential` sends live values that no report holds.
@Suite struct CredentialRoleTests {
    /// An application code that is no public reference credential, so redaction replaces it.
    static let liveCode = "acme-live-app-code-7f3a9c"
    static let liveKey = "acme-live-api-key-51d0e2"

    /// The reference serving one application whose code and key are `liveCode` and `liveKey`.
    static func reference() -> ReferenceImplementation {
        ReferenceImplementation(
            configuration: ReferenceConfiguration(applications: [
                .init(id: "acme", applicationCode: liveCode, apiKey: liveKey, userDataMode: .all)
            ]))
    }

    /// Registers a device and personalizes it against `server`, writing each exchange through a redacting
    /// `RecordingWriter` into `directory`, as `record` does.
    static func record(into directory: String, server: HTTPServer, redact: Bool = true) async throws {
        let writer = try RecordingWriter(
            directory: directory,
            redaction: redact ? RedactionPolicy(profile: .mobileMessaging) : .disabled)
        let curl = CurlTransport(timeout: .seconds(10))
        func exchange(_ method: HTTPMethod, _ target: String, id: String?, body: String) async throws -> HTTPResponse {
            var headers: HTTPFields = ["Authorization": "App \(liveCode)", "Content-Type": "application/json"]
            if let id { headers["pushregistrationid"] = id }
            let request = HTTPRequest(method: method, url: target, headerFields: headers, body: Data(body.utf8))
            let response = try await curl.send(request.rebased(onto: server.baseURL))
            try writer.append(
                upstream: "mobile", request: request, response: response, startedAt: Date(), durationMs: 1)
            return response
        }
        let registered = try await exchange(
            .post, "/mobile/1/appinstance?ri=true", id: nil,
            body: #"{"pushServiceToken":"fcm-credential-token","pushServiceType":"Firebase","os":"Android"}"#)
        let id = try #require(try JSONValue.parse(registered.body)["pushRegId"]?.stringValue)
        let personalized = try await exchange(
            .post,
            "/mobile/1/appinstance/\(id)/personalize?forceDepersonalize=false&keepAsLead=false&setDeviceAsPrimary=false",
            id: id, body: #"{"userIdentity":{"externalUserId":"cust-credential"}}"#)
        #expect(personalized.status == 200)
        writer.close()
    }

    /// A reference served for one test (stopped by it) and a redacted recording made against it.
    struct Fixture {
        let scratch: Scratch
        let server: HTTPServer
        let dir: String
        /// The pseudonym the recording's metadata names for the application code.
        let pseudonym: String

        static func make() async throws -> Fixture {
            let scratch = try Scratch()
            let server = try CredentialRoleTests.served()
            let dir = scratch.path("redacted")
            do {
                try await CredentialRoleTests.record(into: dir, server: server)
                let pseudonym = try #require(try RecordingMeta.find(forTrace: dir)?.credentials.first?.pseudonym)
                return Fixture(scratch: scratch, server: server, dir: dir, pseudonym: pseudonym)
            } catch {
                server.stop()
                throw error
            }
        }

        func conform(_ args: [String], environment: [String: String] = [:]) async -> (
            code: Int32, out: String, err: String
        ) {
            await CredentialRoleTests.conform(args, in: scratch.url.path, environment: environment)
        }
    }

    static func served() throws -> HTTPServer {
        let server = try HTTPServer(handler: reference())
        try server.start()
        return server
    }

    /// `conform ARGS` in process in `directory`, with `environment`.
    static func conform(_ args: [String], in directory: String, environment: [String: String] = [:]) async -> (
        code: Int32, out: String, err: String
    ) {
        let out = MemorySink()
        let err = MemorySink()
        let io = CommandIO(out: out, err: err, color: false, environment: environment, currentDirectory: directory)
        let code = await ConformCommand.main(["conform"] + args, io: io)
        return (code, out.text, err.text)
    }

    @Test func theMetadataNamesEachRoleByItsPseudonymNeverTheClearValue() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.server.stop() }
        let dir = fixture.dir
        let meta = try String(contentsOfFile: dir + "/meta.json", encoding: .utf8)
        let exchanges = try String(contentsOfFile: dir + "/exchanges.jsonl", encoding: .utf8)
        #expect(!meta.contains(Self.liveCode) && !exchanges.contains(Self.liveCode))
        let credentials = try #require(try RecordingMeta.find(forTrace: dir)).credentials
        #expect(credentials.map(\.role) == ["appCode"])
        let pseudonym = fixture.pseudonym
        #expect(credentials.first?.pseudonym == pseudonym)
        #expect(pseudonym.hasPrefix("redacted-"))
        #expect(
            exchanges.contains("App \(pseudonym)"), "the pseudonym the metadata names is the one the exchanges hold")
    }

    @Test func checkRestrictedCatchesTheViolationOnARedactedRecording() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.server.stop() }
        let scratch = fixture.scratch
        let dir = fixture.dir
        let pseudonym = fixture.pseudonym

        let plain = await Self.conform(["check", dir], in: scratch.url.path)
        #expect(plain.code == 0, "without the option the app is not restricted:\n\(plain.out)\(plain.err)")

        let check = await Self.conform(["check", dir, "--restricted", Self.liveCode], in: scratch.url.path)
        #expect(check.code == 1, "check printed:\n\(check.out)\(check.err)")
        #expect(check.out.contains("M4 sent by the app of restricted application '\(pseudonym)'"), "\(check.out)")
        #expect(
            check.err.contains("note: --restricted ••••3a9c is matched as \(pseudonym) in \(dir)"), "\(check.err)")
        #expect(!check.err.contains(Self.liveCode), "a note shows the code masked: \(check.err)")
        #expect(!check.err.contains("warning:"), "\(check.err)")

        // The pseudonym itself is matched as it stands.
        let byPseudonym = await Self.conform(["check", dir, "--restricted", pseudonym], in: scratch.url.path)
        #expect(byPseudonym.code == 1, "\(byPseudonym.out)\(byPseudonym.err)")
    }

    @Test func aCodeTheTraceNeverHoldsIsAWarningNamingIt() async throws {
        let scratch = try Scratch()
        let server = try Self.served()
        defer { server.stop() }
        let clear = scratch.path("clear")
        try await Self.record(into: clear, server: server, redact: false)
        let absent = "acme-other-app-code-0000"
        let check = await Self.conform(["check", clear, "--restricted", absent], in: scratch.url.path)
        #expect(check.code == 0, "\(check.out)\(check.err)")
        #expect(
            check.err.contains(
                "warning: --restricted ••••0000: this application code never appears in the trace, in clear or as a pseudonym\n"
            ), "\(check.err)")
        #expect(!check.err.contains(absent), "a warning shows the code masked: \(check.err)")

        // In a redacted trace, a pseudonym it does not hold is absent too.
        let redacted = scratch.path("redacted")
        try await Self.record(into: redacted, server: server)
        let missing = "redacted-0000000000000000"
        let other = await Self.conform(["check", redacted, "--jwt", missing], in: scratch.url.path)
        #expect(other.code == 0, "\(other.out)\(other.err)")
        #expect(other.err.contains("warning: --jwt \(missing): this application code never appears"), "\(other.err)")
    }

    @Test func aCheckOfUnredactedTrafficNamesTheLiveCodeMasked() async throws {
        let scratch = try Scratch()
        let server = try Self.served()
        defer { server.stop() }
        let clear = scratch.path("clear")
        try await Self.record(into: clear, server: server, redact: false)
        let check = await Self.conform(["check", clear, "--restricted", Self.liveCode], in: scratch.url.path)
        #expect(check.code == 1, "\(check.out)\(check.err)")
        #expect(check.out.contains("M4 sent by the app of restricted application '••••3a9c'"), "\(check.out)")
        #expect(!(check.out + check.err).contains(Self.liveCode), "\(check.out)\(check.err)")
    }

    @Test func twoCodesInClearForOnePseudonymCannotBeToldApart() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.server.stop() }
        let scratch = fixture.scratch
        let dir = fixture.dir
        let pseudonym = fixture.pseudonym
        let check = await Self.conform(
            ["check", dir, "--restricted", Self.liveCode, "--jwt", "acme-other-app-code-0000"], in: scratch.url.path)
        #expect(check.code == 64, "\(check.out)\(check.err)")
        #expect(
            check.err.hasPrefix(
                "Error: \(dir) holds 1 redacted application codes (\(pseudonym)) and --restricted ••••3a9c, "
                    + "--jwt ••••0000 cannot be told apart among them; give the pseudonym instead "
                    + "(--restricted \(pseudonym))\n"), "\(check.err)")
    }

    @Test func replayWithTheLiveCredentialPassesWhereWithoutItEveryExchangeIs401() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.server.stop() }
        let scratch = fixture.scratch
        let server = fixture.server
        let dir = fixture.dir
        let pseudonym = fixture.pseudonym

        let refused = await Self.conform(["replay", dir, "--target", server.baseURL], in: scratch.url.path)
        #expect(refused.code == 1, "\(refused.out)\(refused.err)")
        #expect(refused.out.contains("0 matched, 2 differed"), "\(refused.out)")
        #expect(
            refused.out.contains(
                "help: 2 of 2 exchanges answered 401: the recording's credentials are pseudonyms: the application "
                    + "code is redacted as \(pseudonym) (--credential appCode=VALUE or CONFORM_CREDENTIAL_APPCODE)\n"),
            "\(refused.out)")
        #expect(
            refused.out.contains("note:     the recording's credentials are pseudonyms: the application code"),
            "each refused exchange carries the hint:\n\(refused.out)")

        let reports = ["json", "junit", "html"].map { scratch.path("replay.\($0)") }
        let live = await Self.conform(
            ["replay", dir, "--target", server.baseURL, "--credential", "appCode=\(Self.liveCode)"]
                + zip(["json", "junit", "html"], reports).flatMap { ["--report", "\($0):\($1)"] },
            in: scratch.url.path)
        #expect(live.code == 0, "\(live.out)\(live.err)")
        #expect(live.out.contains("2 matched, 0 differed"), "\(live.out)")
        #expect(!live.out.contains(Self.liveCode) && !live.err.contains(Self.liveCode))
        for report in reports {
            let text = try String(contentsOfFile: report, encoding: .utf8)
            #expect(!text.isEmpty)
            #expect(!text.contains(Self.liveCode), "\(report) holds the live value")
        }

        // From the environment, the role's name in capitals.
        let fromEnvironment = await Self.conform(
            ["replay", dir, "--target", server.baseURL], in: scratch.url.path,
            environment: ["CONFORM_CREDENTIAL_APPCODE": Self.liveCode])
        #expect(fromEnvironment.code == 0, "\(fromEnvironment.out)\(fromEnvironment.err)")
    }

    @Test func theLiveValueNeverReachesAReportOfAnExchangeThatDiffers() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.server.stop() }
        let scratch = fixture.scratch
        let server = fixture.server
        let dir = fixture.dir
        // The recorded registration answered 201: the replay differs there, so the reports keep that exchange.
        let file = dir + "/exchanges.jsonl"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        try text.replacingOccurrences(of: #""response":{"status":200"#, with: #""response":{"status":201"#)
            .write(toFile: file, atomically: true, encoding: .utf8)
        let reports = ["json", "junit", "html"].map { scratch.path("differs.\($0)") }
        let live = await Self.conform(
            ["replay", dir, "--target", server.baseURL, "--credential", "appCode=\(Self.liveCode)"]
                + zip(["json", "junit", "html"], reports).flatMap { ["--report", "\($0):\($1)"] },
            in: scratch.url.path)
        #expect(live.code == 1, "\(live.out)\(live.err)")
        #expect(live.out.contains("differs status"), "\(live.out)")
        let json = try String(contentsOfFile: reports[0], encoding: .utf8)
        #expect(json.contains("/mobile/1/appinstance"), "the JSON report keeps the exchange that differs")
        for report in reports {
            #expect(!(try String(contentsOfFile: report, encoding: .utf8)).contains(Self.liveCode), "\(report)")
        }
    }

    @Test func anUnknownRoleIsAUsageErrorWithASuggestion() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.server.stop() }
        let scratch = fixture.scratch
        let server = fixture.server
        let dir = fixture.dir
        let typo = await Self.conform(
            ["replay", dir, "--target", server.baseURL, "--credential", "appCod=\(Self.liveCode)"], in: scratch.url.path
        )
        #expect(typo.code == 64)
        #expect(
            typo.err.hasPrefix(
                "Error: --credential appCod=…: 'appCod' is not a credential role (appCode, apiKey); did you mean 'appCode'?\n"
            ), "\(typo.err)")
        #expect(!typo.err.contains(Self.liveCode))
        let absent = await Self.conform(
            ["replay", dir, "--target", server.baseURL, "--credential", "apiKey=\(Self.liveKey)"], in: scratch.url.path)
        #expect(absent.code == 64)
        #expect(absent.err.contains("the recording's metadata names no redacted apiKey"), "\(absent.err)")
        let environment = await Self.conform(
            ["replay", dir, "--target", server.baseURL], in: scratch.url.path,
            environment: ["CONFORM_CREDENTIAL_APPKODE": Self.liveCode])
        #expect(environment.code == 64)
        #expect(environment.err.contains("CONFORM_CREDENTIAL_APPKODE: 'APPKODE' is not a credential role"))
    }

    @Test func recordCheckTakesTheApplicationCodesAsTheAppKnowsThem() async throws {
        let scratch = try Scratch()
        let upstream = try Self.served()
        defer { upstream.stop() }
        let out = scratch.path("flow")
        let never = "acme-never-seen-app-code"
        let args = [
            "record", "--listen", "127.0.0.1:0", "--upstream", upstream.baseURL, "--out", out, "--check",
            "--restricted", Self.liveCode, "--jwt", never,
        ]
        let child = try await offThePool { try ConformProcess(args, scratch: scratch, banner: "Recording on ") }
        let curl = CurlTransport(timeout: .seconds(10))
        let headers: HTTPFields = ["Authorization": "App \(Self.liveCode)", "Content-Type": "application/json"]
        let registered = try await curl.send(
            HTTPRequest(
                method: .post, url: child.baseURL + "/mobile/1/appinstance?ri=true", headerFields: headers,
                body: Data(#"{"pushServiceToken":"fcm-record-token","pushServiceType":"Firebase","os":"Android"}"#.utf8)
            ))
        let id = try #require(try JSONValue.parse(registered.body)["pushRegId"]?.stringValue)
        var personalize = headers
        personalize["pushregistrationid"] = id
        let personalized = try await curl.send(
            HTTPRequest(
                method: .post, url: child.baseURL + "/mobile/1/appinstance/\(id)/personalize",
                headerFields: personalize,
                body: Data(#"{"userIdentity":{"externalUserId":"cust-record"}}"#.utf8)))
        #expect(personalized.status == 200)
        let result = try await offThePool { try child.interrupt() }
        #expect(result.code == 1, "record printed:\n\(result.out)\(result.err)")
        let pseudonym = try #require(try RecordingMeta.find(forTrace: out)?.credentials.first?.pseudonym)
        #expect(result.out.contains("M4 sent by the app of restricted application '\(pseudonym)'"), "\(result.out)")
        #expect(
            result.err.contains(
                "warning: --jwt \(SecretMasker.masked(never)): this application code never appeared in the traffic"),
            "\(result.err)")
        #expect(!result.err.contains(never), "a warning shows the code masked: \(result.err)")
        #expect(!result.err.contains("warning: --restricted"), "\(result.err)")
        let usage = await Self.conform(
            ["record", "--upstream", upstream.baseURL, "--out", scratch.path("x"), "--restricted", Self.liveCode],
            in: scratch.url.path)
        #expect(usage.code == 64)
        #expect(usage.err.hasPrefix("Error: --restricted, --restricted-access and --jwt need --check"), "\(usage.err)")
    }

    @Test func anExportedHARAndItsImportKeepTheRoles() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.server.stop() }
        let scratch = fixture.scratch
        let dir = fixture.dir
        let pseudonym = fixture.pseudonym
        let har = scratch.path("flow.har")
        let export = await Self.conform(["export", dir, "--out", har], in: scratch.url.path)
        #expect(export.code == 0, "\(export.err)")
        let text = try String(contentsOfFile: har, encoding: .utf8)
        #expect(
            text.contains(#""_conformCredentials": [{"role":"appCode","pseudonym":"\#(pseudonym)"}]"#),
            "\(text.prefix(400))")
        let check = await Self.conform(["check", har, "--restricted", Self.liveCode], in: scratch.url.path)
        #expect(check.code == 1, "\(check.out)\(check.err)")
        #expect(check.err.contains("is matched as \(pseudonym) in \(har)"), "\(check.err)")
        let imported = scratch.path("imported")
        let load = await Self.conform(["import", har, "--out", imported], in: scratch.url.path)
        #expect(load.code == 0, "\(load.err)")
        #expect(
            try RecordingMeta.find(forTrace: imported)?.credentials
                == [RedactedCredential(role: "appCode", pseudonym: pseudonym)])
    }

    @Test func serveCheckTakesTheApplicationCodesToo() async throws {
        let scratch = try Scratch()
        let out = scratch.path("checked")
        let child = try await offThePool {
            try ConformProcess(
                ["serve", "--check", "--port", "0", "--out", out, "--restricted", "conform-app-code"],
                scratch: scratch, banner: "Checking an app against the reference implementation on ")
        }
        let client = DeviceClient(base: child.baseURL)
        let id = try await client.register(token: "fcm-serve-check-token")
        #expect(try await client.personalize(id, user: "cust-serve", email: nil).status == 200)
        let result = try await offThePool { try child.interrupt() }
        #expect(result.code == 1, "serve --check printed:\n\(result.out)\(result.err)")
        // The reference's public code is kept in clear, and matched as given.
        #expect(result.out.contains("M4 sent by the app of restricted application 'conform-app-code'"), "\(result.out)")
        #expect(!result.err.contains("warning:"), "\(result.err)")
    }

    @Test func aRecordingRedactedBeforeRolesWereNamedIsMatchedByWhereTheCodeIsCarried() async throws {
        let fixture = try await Fixture.make()
        defer { fixture.server.stop() }
        // meta.json as it was written before roles were named.
        try
            #"{"format":"conform-recording","version":1,"createdAt":"2026-01-01T00:00:00.000Z","redaction":{"enabled":true,"pseudonyms":"x","rules":[]}}"#
            .write(toFile: fixture.dir + "/meta.json", atomically: true, encoding: .utf8)
        let check = await fixture.conform(["check", fixture.dir, "--restricted", Self.liveCode])
        #expect(check.code == 1, "\(check.out)\(check.err)")
        #expect(check.err.contains("is matched as \(fixture.pseudonym) in \(fixture.dir)"), "\(check.err)")
        let replay = await fixture.conform(["replay", fixture.dir, "--target", fixture.server.baseURL])
        #expect(replay.code == 1)
        #expect(replay.out.contains("--credential PSEUDONYM=VALUE"), "\(replay.out)")
        let mapped = await fixture.conform([
            "replay", fixture.dir, "--target", fixture.server.baseURL, "--credential",
            "\(fixture.pseudonym)=\(Self.liveCode)",
        ])
        #expect(mapped.code == 0, "\(mapped.out)\(mapped.err)")
    }
}
