import ConformCLI
import ConformCore
import ConformCurl
import ConformReference
import ConformRunner
import ConformServer
import ConformTestSupport
import Foundation
import Testing

/// The traffic subcommands end to end: `record` and `serve --check` as real processes stopped with SIGINT, the rest in
/// process. Deterministic outputs are golden case directories (`Cases/traffic-*`); these tests cover what varies.
@Suite struct TrafficCommandTests {
    static let root = TestPaths.root.path
    static let sample = "recordings/personalization-flow"
    static let sampleNoise = "recordings/personalization-flow/noise.yaml"

    /// Runs `conform ARGS` in process with the repository root as the current directory.
    func conform(_ args: [String]) async -> (code: Int32, out: String, err: String) {
        await conformInProcess(args, in: Self.root)
    }

    // MARK: record and serve --check (child processes)

    @Test func recordProxiesToTheUpstreamAndRedactsOnWrite() async throws {
        let scratch = try Scratch()
        let upstream = try HTTPServer(handler: ReferenceImplementation())
        try upstream.start()
        defer { upstream.stop() }
        let out = scratch.path("flow")
        let args = ["record", "--listen", "127.0.0.1:0", "--upstream", upstream.baseURL, "--out", out]
        let child = try await offThePool { try ConformProcess(args, scratch: scratch, banner: "Recording on ") }
        let client = DeviceClient(base: child.baseURL)
        let id = try await client.register(token: "dKq3xY7TQpe:APA91bF2mZ0oTqg7H1kYw3d9VbR5nC8sLp4XuE6jQa0")
        let personalized = try await client.personalize(id, user: "cust-ana", email: "ana.kovac@mail.example.org")
        #expect(personalized.status == 200)
        let user = try await client.getUser(id)
        #expect(user.status == 200)
        #expect(
            String(decoding: user.body, as: UTF8.self).contains("ana.kovac@mail.example.org"),
            "the app sees the real data")
        let result = try await offThePool { try child.interrupt() }
        #expect(result.code == 0, "record printed:\n\(result.out)\(result.err)")
        #expect(result.out.contains("Recorded 3 exchanges into \(out)"))

        let text = try String(contentsOfFile: out + "/exchanges.jsonl", encoding: .utf8)
        #expect(text.split(separator: "\n").count == 3)
        #expect(!text.contains("ana.kovac"))
        #expect(!text.contains("dKq3xY7TQpe"))
        #expect(text.contains("@redacted.invalid"))
        #expect(text.contains("redacted-token-"))
        let scan = await conform(["scan", out])
        #expect(scan.code == 0, "scan printed:\n\(scan.out)")
    }

    /// `conform serve --check` started on port 0 into `checked` under `scratch`, and that recording's path.
    func serveCheck(_ scratch: Scratch) async throws -> (ConformProcess, String) {
        let out = scratch.path("checked")
        let child = try await offThePool {
            try ConformProcess(
                ["serve", "--check", "--port", "0", "--out", out], scratch: scratch,
                banner: "Checking an app against the reference implementation on ")
        }
        return (child, out)
    }

    @Test func serveCheckReportsViolationsLiveAndAtTheEnd() async throws {
        let scratch = try Scratch()
        let (child, out) = try await serveCheck(scratch)
        let client = DeviceClient(base: child.baseURL)
        // Personalizing a device that was never registered, then switching users without forceDepersonalize.
        _ = try await client.personalize("0f8fad5b-d9cb-469f-a165-70867728950e", user: "cust-ana", email: nil)
        let id = try await client.register(token: "fcm-check-token")
        #expect(try await client.personalize(id, user: "cust-ana", email: nil).status == 200)
        _ = try await client.personalize(id, user: "cust-ivo", email: nil)
        // The harness reports a logout on the reserved path; the app then reads the user without depersonalizing.
        let posted = try await client.send(
            .post, "/_conform/events", id: nil, body: #"{"event":"logout","pushRegId":"\#(id)"}"#)
        #expect(posted.status.code == 200)
        _ = try await client.getUser(id)
        let result = try await offThePool { try child.interrupt() }
        #expect(result.code == 1, "serve --check printed:\n\(result.out)\(result.err)")
        #expect(result.out.contains("Recorded 5 exchanges and 1 app event"))
        #expect(result.out.contains("App event 5: logout"))
        #expect(result.out.contains("Result: 3 violations"), "\(result.out)")
        // The one console: each broken rule with the exchanges that break it.
        #expect(result.out.contains("✘ check-3-logout › logout-depersonalize: "), "\(result.out)")
        #expect(result.out.contains("violation logout-depersonalize at exchange 6 (M7), flow \(id)\n"), "\(result.out)")
        #expect(result.out.contains("✘ check-1-registration › registration-first: "), "\(result.out)")
        #expect(
            result.out.contains(
                "violation registration-first at exchange 1 (M4), flow 0f8fad5b-d9cb-469f-a165-70867728950e\n"),
            "\(result.out)")
        #expect(result.out.contains("✘ check-2-login › user-switch: "), "\(result.out)")
        #expect(result.out.contains("violation user-switch at exchange 4 (M4), flow \(id)\n"), "\(result.out)")
        #expect(result.err.contains("violation: exchange 1 (M4"), "violations are reported live on stderr")
        let written = try String(contentsOfFile: out + "/exchanges.jsonl", encoding: .utf8)
        #expect(written.split(separator: "\n").count == 6)
        #expect(written.contains(#""seq":5,"event":"logout""#))
    }

    /// `serve --check` announces the origin the app reached as its base URL (M12), never the internal one the check
    /// hands the reference; an app that follows it, as the SDKs do, goes on through it and its traffic is judged.
    @Test func serveCheckAnnouncesTheOriginTheAppReached() async throws {
        let scratch = try Scratch()
        let (child, out) = try await serveCheck(scratch)
        let announced = try await DeviceClient(base: child.baseURL).send(.get, "/mobile/1/baseurl", id: nil, body: nil)
        let base = try #require(try JSONValue.parse(announced.body)["baseUrl"]?.stringValue)
        #expect(base == child.baseURL)
        let client = DeviceClient(base: base)
        let id = try await client.register(token: "fcm-followed-token")
        #expect(try await client.personalize(id, user: "cust-ana", email: nil).status == 200)
        let result = try await offThePool { try child.interrupt() }
        #expect(result.code == 0, "serve --check printed:\n\(result.out)\(result.err)")
        #expect(result.out.contains("Recorded 3 exchanges"), "\(result.out)")
        #expect(result.out.hasSuffix("Result: 0 violations\n"), "\(result.out)")
    }

    /// A request whose body no one can decode (a corrupt gzip, an unknown coding), refused by the server with 400,
    /// changed nothing: `check` of the recording names it in a note and judges the rest, instead of CANNOT JUDGE.
    @Test func aRefusedUndecodableRequestIsNotedNotUnjudgeable() async throws {
        let scratch = try Scratch()
        let (child, out) = try await serveCheck(scratch)
        let client = DeviceClient(base: child.baseURL)
        let id = try await client.register(token: "fcm-refused-token")
        for coding in ["gzip", "bogus"] {
            let refused = try await client.curl.send(
                HTTPRequest(
                    method: .post, url: child.baseURL + "/mobile/1/appinstance/\(id)/personalize",
                    headerFields: [
                        "Authorization": "App conform-app-code", "pushregistrationid": id,
                        "Content-Type": "application/json", "Content-Encoding": coding,
                    ], body: Data("not \(coding) data".utf8)))
            #expect(refused.status.code == 400)
        }
        #expect(try await client.personalize(id, user: "cust-ana", email: nil).status == 200)
        let served = try await offThePool { try child.interrupt() }
        #expect(served.code == 0, "serve --check printed:\n\(served.out)\(served.err)")
        let check = await conform(["check", out])
        #expect(check.code == 0, "check printed:\n\(check.out)\(check.err)")
        #expect(check.out.hasSuffix("Result: 0 violations\n"), "\(check.out)")
        #expect(check.out.contains(" 0 could not be judged"), "\(check.out)")
        #expect(
            check.out.contains(
                "exchange 2 (POST '/mobile/1/appinstance/\(id)/personalize'): the server refused it with 400"))
        #expect(check.out.contains("in 'bogus' encoding, which Conform cannot decode; it changed nothing"))
    }

    // MARK: replay

    // The replays below run in process beside hundreds of other tests: a timeout a starved thread cannot reach, so
    // the in-process reference is never read as not answering.
    @Test func replayOfATamperedRecordingPrintsTheDifference() async throws {
        let scratch = try Scratch()
        let tampered = scratch.path("tampered")
        try FileManager.default.createDirectory(atPath: tampered, withIntermediateDirectories: true)
        var lines = try String(contentsOfFile: Self.root + "/" + Self.sample + "/exchanges.jsonl", encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Exchange 5 (the Android device reads its user): the recorded answer now says 201.
        #expect(lines[4].contains(#""seq":5,"#))
        lines[4] = lines[4].replacingOccurrences(of: #""response":{"status":200"#, with: #""response":{"status":201"#)
        try lines.joined(separator: "\n").write(
            toFile: tampered + "/exchanges.jsonl", atomically: true, encoding: .utf8)

        let replay = await conform(["replay", tampered, "--noise", Self.sampleNoise, "--timeout", "300"])
        #expect(replay.code == 1, "replay printed:\n\(replay.out)\(replay.err)")
        #expect(
            replay.out.contains("✘ flow 7b9c87e0-4e02-4c95-a95f-b829abc94e86 › exchange 5: GET /mobile/1/appinstance/"),
            "\(replay.out)")
        #expect(replay.out.contains("differs status\n        expected: 201\n        actual:   200\n"), "\(replay.out)")
        #expect(replay.out.contains("15 matched, 1 differed, 0 got no response"))
        #expect(replay.out.hasSuffix("Result: DIFFERENT BEHAVIOUR\n"))
    }

    @Test func replayIsStableAcrossRunsOfDevicesSharingAPerson() async throws {
        // The two sample devices share a person; concurrent flows must still see each other's changes in order.
        for _ in 0..<10 {
            let replay = await conform(["replay", Self.sample, "--noise", Self.sampleNoise, "--timeout", "300"])
            #expect(replay.code == 0, "replay printed:\n\(replay.out)\(replay.err)")
        }
    }

    @Test func replayAgainstAServedReferenceRemapsMintedIds() async throws {
        let server = try HTTPServer(handler: ReferenceImplementation())
        try server.start()
        defer { server.stop() }
        let replay = await conform([
            "replay", Self.sample, "--target", server.baseURL, "--noise", Self.sampleNoise, "--connections", "2",
        ])
        #expect(replay.code == 0, "replay printed:\n\(replay.out)\(replay.err)")
        #expect(
            replay.out.hasPrefix(
                "Replayed 16 exchanges against \(server.baseURL): 16 matched, 0 differed, 0 got no response\n\n"
                    + "Summary: 3 device flows, 16 exchanges: 16 passed, 0 failed, 0 could not be judged in "),
            "\(replay.out)")
        #expect(replay.out.hasSuffix(" s\nResult: SAME BEHAVIOUR\n"), "\(replay.out)")
        let usage = await conform(["replay", Self.sample, "--connections", "0"])
        #expect(usage.code == 64)
        #expect(usage.err.hasPrefix("Error: --connections takes 1 to 256, got '0'\n"))
    }

    @Test func learnedNoiseIsWrittenAsYAMLThatReplayLoads() async throws {
        let scratch = try Scratch()
        let rules = scratch.path("learned.yaml")
        let learn = await conform(["replay", Self.sample, "--learn-noise", rules])
        #expect(learn.code == 0, "learn printed:\n\(learn.out)\(learn.err)")
        #expect(learn.out.contains("from two replays; wrote \(rules)"))
        let yaml = try String(contentsOfFile: rules, encoding: .utf8)
        #expect(yaml.hasPrefix("# Noise rules proposed by replaying the same recording twice"))
        #expect(yaml.contains("ignore:"))
        let replay = await conform(["replay", Self.sample, "--noise", rules])
        #expect(replay.err.isEmpty, "the learned rules load without problems")
        #expect(replay.code == 0, "\(replay.out)")
        #expect(replay.out.hasSuffix("Result: SAME BEHAVIOUR\n"), "\(replay.out)")

        try "ignore:\n  - path: 42\n".write(toFile: rules, atomically: true, encoding: .utf8)
        let broken = await conform(["replay", Self.sample, "--noise", rules])
        #expect(broken.code == 2)
        #expect(broken.err.contains("\(rules):2:"), "a broken rules file is reported with its line")
    }

    // MARK: HAR, diff

    @Test func exportImportExportIsTheIdentity() async throws {
        let scratch = try Scratch()
        let first = scratch.path("first.har")
        let imported = scratch.path("imported")
        let second = scratch.path("second.har")
        #expect(await conform(["export", Self.sample, "--out", first]).code == 0)
        let importing = await conform(["import", first, "--out", imported])
        #expect(importing.code == 0, "import printed:\n\(importing.out)\(importing.err)")
        #expect(importing.out == "Imported 16 exchanges from \(first) into \(imported)\n")
        #expect(await conform(["export", imported, "--out", second]).code == 0)
        let a = try Data(contentsOf: URL(fileURLWithPath: first))
        let b = try Data(contentsOf: URL(fileURLWithPath: second))
        #expect(a == b)
        let stdout = await conform(["export", Self.sample])
        #expect(Data(stdout.out.utf8) == a, "without --out the HAR goes to standard output")
        #expect(await conform(["check", imported]).code == 0)
    }

    @Test func diffOfTwoServedImplementationsSendsEachItsOwnRequests() async throws {
        let good = try HTTPServer(handler: ReferenceImplementation())
        let faulty = try HTTPServer(handler: ReferenceImplementation(faults: [.ignoreForceDepersonalize]))
        try good.start()
        try faulty.start()
        defer {
            good.stop()
            faulty.stop()
        }
        let same = await conform([
            "diff", "--target", "builtin", "--target", good.baseURL, "--noise", Self.sampleNoise, Self.sample,
        ])
        #expect(same.code == 0, "diff printed:\n\(same.out)\(same.err)")
        let differ = await conform([
            "diff", "--target", good.baseURL, "--target", faulty.baseURL, "--noise", Self.sampleNoise, Self.sample,
        ])
        #expect(differ.code == 1, "diff printed:\n\(differ.out)\(differ.err)")
        #expect(
            differ.out.contains("✘ flow 2bc8c442-da46-4a88-bbdc-fbb717ecde11 › exchange 11: POST "), "\(differ.out)")
        #expect(differ.out.contains("differs status\n        expected: 200\n        actual:   400\n"), "\(differ.out)")
    }

    /// A trace's format is its content's business: `diff` compares a HAR as it compares a recording.
    @Test func diffReadsAHARAsItReadsARecording() async throws {
        let har = Self.sample + "/personalization-flow.har"
        // With the sample's noise file: the two references stamp messages with their own clocks.
        let both = ["diff", "--target", "builtin", "--target", "builtin", "--noise", Self.sampleNoise]
        let ofHAR = await conform(both + [har])
        let ofRecording = await conform(both + [Self.sample])
        #expect(ofHAR.code == 0, "\(ofHAR.err)")
        #expect(ofHAR.out.contains("\(har): 16 exchanges, 16 the same, 0 different\n"), "\(ofHAR.out)")
        #expect(ofRecording.out.contains("\(Self.sample): 16 exchanges, 16 the same, 0 different\n"))
        #expect(ofHAR.out.hasSuffix("Result: the two implementations behave the same\n"))
    }

    @Test func diffOnSuitesReportsTheStepsAFaultBreaks() async throws {
        // Generated values (uuid(), minted ids) differ between the runs and are matched up; send times are noise.
        let same = await conform([
            "diff", "--target", "builtin", "--target", "builtin", "--noise", Self.sampleNoise, "suites",
        ])
        #expect(same.code == 0, "diff printed:\n\(same.out)\(same.err)")
        #expect(same.out.hasSuffix("Result: the two implementations behave the same\n"), "\(same.out)")
        #expect(!same.out.contains("✘"), "\(same.out)")
        let faulty = await conform([
            "diff", "--target", "builtin", "--target", "builtin", "--fault-b", "ignoreForceDepersonalize", "--noise",
            Self.sampleNoise, "suites",
        ])
        #expect(faulty.code == 1, "diff printed:\n\(faulty.out)\(faulty.err)")
        #expect(faulty.out.contains("✘ login › phone › 8. the other user logs in with forceDepersonalize=true\n"))
        #expect(faulty.out.contains("differs verdict\n        expected: A pass\n        actual:   B fail\n"))
        #expect(faulty.out.contains("differs status\n        expected: 200\n        actual:   400\n"))
    }

    /// Two targets that both cannot be reached behave alike, but nothing was compared: CANNOT JUDGE, never a pass.
    @Test func diffOnSuitesWhereNeitherSideAnswersCannotJudge() async {
        let down = "http://127.0.0.1:1"
        let result = await conform(["diff", "--target", down, "--target", down, "suites/01-registration.yaml"])
        #expect(result.code == 2, "diff printed:\n\(result.out)\(result.err)")
        #expect(result.out.contains("cannot judge: neither side answered"), "\(result.out)")
        #expect(result.out.contains("0 passed, 0 failed, 8 could not be judged"), "\(result.out)")
        #expect(result.out.hasSuffix("Result: CANNOT JUDGE\n"), "\(result.out)")
    }

    /// `run` and `validate` outside a checkout, with no suites installed: where they looked and how to name suites.
    @Test(arguments: ["run", "validate"])
    func withoutSuitesSaysWhereItLooked(_ command: String) async throws {
        let scratch = try Scratch()
        let result = await conformInProcess([command], in: scratch.url.path)
        #expect(result.code == 2, "\(result.out)\(result.err)")
        #expect(
            result.err.contains(
                "error: no suites named, and none found where they are looked for: \(scratch.path("suites")) (a "
                    + "'suites' directory here) and "), "\(result.err)")
        #expect(
            result.err.contains(
                "help: name suite files or directories on the command line (e.g. path/to/suites), or run where a "
                    + "'suites' directory is (a checkout of the kit has one)\n"), "\(result.err)")
    }

    @Test func diffWithoutInputsComparesTheSuitesOfTheCurrentDirectoryOnly() async throws {
        let scratch = try Scratch()
        let noise = TestPaths.root.appendingPathComponent(Self.sampleNoise).path
        let args = ["diff", "--target", "builtin", "--target", "builtin", "--noise", noise]
        let none = await conformInProcess(args, in: scratch.url.path)
        #expect(none.code == 2, "diff printed:\n\(none.out)\(none.err)")
        #expect(none.err.contains("suites: error: no such file or directory"), "\(none.err)")
        try FileManager.default.createDirectory(atPath: scratch.path("suites"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: TestPaths.root.appendingPathComponent("suites/01-registration.yaml"),
            to: URL(fileURLWithPath: scratch.path("suites/01-registration.yaml")))
        let local = await conformInProcess(args, in: scratch.url.path)
        #expect(local.code == 0, "diff printed:\n\(local.out)\(local.err)")
        #expect(local.out.hasSuffix("Result: the two implementations behave the same\n"), "\(local.out)")
    }
}

/// The mobile calls a test device makes, over HTTP with libcurl.
struct DeviceClient {
    let base: String
    let curl = CurlTransport(timeout: .seconds(10))

    func send(_ method: HTTPMethod, _ target: String, id: String?, body: String?) async throws -> HTTPResponse {
        var headers: HTTPFields = ["Authorization": "App conform-app-code"]
        if let id { headers["pushregistrationid"] = id }
        if body != nil { headers["Content-Type"] = "application/json" }
        return try await curl.send(
            HTTPRequest(method: method, url: base + target, headerFields: headers, body: Data((body ?? "").utf8)))
    }

    func register(token: String) async throws -> String {
        let response = try await send(
            .post, "/mobile/1/appinstance?ri=true", id: nil,
            body: #"{"pushServiceToken":"\#(token)","pushServiceType":"Firebase","os":"Android"}"#)
        guard let id = try JSONValue.parse(response.body)["pushRegId"]?.stringValue else {
            throw ProcessFailure("registration answered \(response.status.rawValue) without a pushRegId")
        }
        return id
    }

    func personalize(_ id: String, user: String, email: String?) async throws -> HTTPResponse {
        let emails = email.map { #","emails":[{"address":"\#($0)"}]"# } ?? ""
        return try await send(
            .post,
            "/mobile/1/appinstance/\(id)/personalize?forceDepersonalize=false&keepAsLead=false&setDeviceAsPrimary=false",
            id: id, body: #"{"userIdentity":{"externalUserId":"\#(user)"\#(emails)}}"#)
    }

    func getUser(_ id: String) async throws -> HTTPResponse {
        try await send(.get, "/mobile/1/appinstance/\(id)/user", id: id, body: nil)
    }
}

struct ProcessFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The built `conform` binary as a long-running child: started, read for its listening address, stopped with SIGINT.
///
/// Its methods block; tests call them through `offThePool`. The process object is only touched by one caller at a time.
final class ConformProcess: @unchecked Sendable {
    let process = SpawnedProcess()
    let stdout: String
    let stderr: String
    private let exit: ProcessExit
    private(set) var baseURL = ""

    /// Starts `conform ARGS` with its streams in files and waits for the `banner` line that names the address.
    init(_ args: [String], scratch: Scratch, banner: String, environment: [String: String] = [:]) throws {
        let binary = TrafficCommandTests.root + "/.build/debug/conform"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw ProcessFailure("\(binary) is missing; build it with 'swift build' before 'swift test --skip-build'")
        }
        stdout = scratch.path("child-\(UUID().uuidString).out")
        stderr = scratch.path("child-\(UUID().uuidString).err")
        FileManager.default.createFile(atPath: stdout, contents: nil)
        FileManager.default.createFile(atPath: stderr, contents: nil)
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = args
        process.currentDirectoryURL = URL(fileURLWithPath: TrafficCommandTests.root)
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardOutput = FileHandle(forWritingAtPath: stdout)
        process.standardError = FileHandle(forWritingAtPath: stderr)
        exit = try ProcessExit(starting: process)
        // Poll for the banner: a bound on start-up, not a timing assertion.
        for _ in 0..<600 {
            let text = (try? String(contentsOfFile: stdout, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(banner) }),
                let range = line.range(of: #"https?://[0-9.]+:[0-9]+"#, options: .regularExpression)
            {
                baseURL = String(line[range])
                return
            }
            if !process.isRunning { break }
            usleep(50_000)
        }
        if process.isRunning { process.terminate() }
        exit.wait()
        let err = (try? String(contentsOfFile: stderr, encoding: .utf8)) ?? ""
        throw ProcessFailure("conform \(args.joined(separator: " ")) did not print '\(banner)…'; stderr:\n\(err)")
    }

    /// Sends SIGINT and returns the exit code and both streams once the process ends.
    func interrupt() throws -> (code: Int32, out: String, err: String) {
        kill(process.processIdentifier, SIGINT)
        return try waitForExit()
    }

    /// Waits for the process to end by itself and returns the exit code and both streams.
    func waitForExit() throws -> (code: Int32, out: String, err: String) {
        exit.wait()
        return (
            process.terminationStatus, try String(contentsOfFile: stdout, encoding: .utf8),
            try String(contentsOfFile: stderr, encoding: .utf8)
        )
    }

    deinit {
        if process.isRunning {
            process.terminate()
            exit.wait()
        }
    }
}
