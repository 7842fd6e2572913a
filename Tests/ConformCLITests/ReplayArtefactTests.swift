import ConformCLI
import ConformCore
import ConformTestSupport
import Foundation
import Testing

/// Replays free of their own artefacts, end to end: a recording made through `conform record` (a real process) in
/// front of `conform serve`, replayed against another served reference.
@Suite struct ReplayArtefactTests {
    /// The reference's JWT application key (its `jwtKeys`, the suites' `jwtSecret`).
    static let jwtSecret = "636f6e666f726d2d6a77742d7365637265742d6b65792d3031"

    func served(_ scratch: Scratch, _ extra: [String] = []) async throws -> ConformProcess {
        try await offThePool {
            try ConformProcess(
                ["serve", "--port", "0"] + extra, scratch: scratch, banner: "Serving the reference implementation on ")
        }
    }

    func recorder(_ scratch: Scratch, upstream: String, out: String) async throws -> ConformProcess {
        try await offThePool {
            try ConformProcess(
                ["record", "--listen", "127.0.0.1:0", "--upstream", upstream, "--out", out], scratch: scratch,
                banner: "Recording on ")
        }
    }

    @Test func aRecordingOfTheSuitesReplaysWithFreshIdentitiesWithoutArtefacts() async throws {
        let scratch = try Scratch()
        let out = scratch.path("suites-recording")
        let upstream = try await served(scratch)
        defer { _ = try? upstream.interrupt() }
        let proxy = try await recorder(scratch, upstream: upstream.baseURL, out: out)
        let run = await conformInProcess(["run", "suites", "--target", proxy.baseURL])
        let stopped = try await offThePool { try proxy.interrupt() }
        #expect(run.code == 0, "\(run.out)\(run.err)")
        #expect(stopped.code == 0, "\(stopped.out)\(stopped.err)")

        let target = try await served(scratch)
        defer { _ = try? target.interrupt() }
        // Without the key: the exchanges that carry a redacted token are not judged, and said once.
        let unsigned = await conformInProcess(["replay", out, "--target", target.baseURL, "--fresh-identities"])
        #expect(unsigned.out.contains(" 0 differed, "), "\(unsigned.out)")
        let said = unsigned.out.components(separatedBy: "cannot replay a redacted token").count - 1
        #expect(said == 1, "\(unsigned.out)")
        #expect(
            unsigned.out.range(
                of:
                    #"\n[0-9]+ exchanges could not be judged: cannot replay a redacted token \(pass --credential jwtSecret=…\)\n"#,
                options: .regularExpression) != nil, "\(unsigned.out)")
        #expect(unsigned.code == 2, "\(unsigned.out)")

        // With the key, every token is re-signed but those the recording shows refused for a reason redaction
        // removed; nothing differs: not the invalid values, not the error texts naming a fresh person.
        let signed = await conformInProcess(
            [
                "replay", out, "--target", target.baseURL, "--fresh-identities",
                "--credential", "jwtSecret=\(Self.jwtSecret)",
            ])
        #expect(signed.out.contains(" 0 differed, 0 got no response, 6 could not be judged\n"), "\(signed.out)")
        #expect(!signed.out.contains("cannot replay a redacted token"), "\(signed.out)")
        #expect(!signed.out.contains("differs "), "\(signed.out)")
        // The suites' tokens refused for their signature, sub, kid or claim: which of these, redaction removed.
        #expect(
            signed.out.contains(
                "\n6 exchanges could not be judged: the recording shows the target refused their redacted token, "
                    + "and whether its signature was valid was redacted with it\n"), "\(signed.out)")
        #expect(signed.code == 2, "\(signed.out)")

        // A broken implementation still differs.
        let broken = try await served(scratch, ["--fault", "emptyIdentityAccepted"])
        defer { _ = try? broken.interrupt() }
        let differs = await conformInProcess(
            [
                "replay", out, "--target", broken.baseURL, "--fresh-identities",
                "--credential", "jwtSecret=\(Self.jwtSecret)",
            ])
        #expect(differs.code == 1, "\(differs.out)")
        #expect(differs.out.contains("Result: DIFFERENT BEHAVIOUR"), "\(differs.out)")
    }

    @Test func aServerNamingItsOwnOriginReplaysTheSameOnAnotherPort() async throws {
        let scratch = try Scratch()
        let out = scratch.path("named-origin")
        let first = try await served(scratch)
        let proxy = try await recorder(scratch, upstream: first.baseURL, out: out)
        let client = DeviceClient(base: proxy.baseURL)
        let answer = try await client.send(.get, "/mobile/1/baseurl", id: nil, body: nil)
        #expect(String(decoding: answer.body, as: UTF8.self) == #"{"baseUrl":"\#(first.baseURL)"}"#)
        _ = try await offThePool { try proxy.interrupt() }
        _ = try await offThePool { try first.interrupt() }
        let meta = try String(contentsOfFile: out + "/meta.json", encoding: .utf8)
        #expect(meta.contains(#""*": "\#(first.baseURL)""#), "\(meta)")

        // The same server again, on another port.
        let again = try await served(scratch)
        defer { _ = try? again.interrupt() }
        #expect(again.baseURL != first.baseURL)
        let replay = await conformInProcess(["replay", out, "--target", again.baseURL])
        #expect(replay.code == 0, "\(replay.out)\(replay.err)")
        #expect(replay.out.contains("Result: SAME BEHAVIOUR"), "\(replay.out)")

        // Without the stored origin (a recording written before it was), the server's own origin differs.
        try meta.replacingOccurrences(of: #""*": "\#(first.baseURL)""#, with: "")
            .replacingOccurrences(of: #""upstreams": {"#, with: #""upstreamsGone": {"#)
            .write(toFile: out + "/meta.json", atomically: true, encoding: .utf8)
        let old = await conformInProcess(["replay", out, "--target", again.baseURL])
        #expect(old.code == 1, "\(old.out)\(old.err)")
        #expect(old.out.contains("differs $.baseUrl"), "\(old.out)")
    }

    @Test func aSigningKeyThatIsNotHexIsAUsageErrorThatDoesNotShowIt() async {
        let sample = TrafficCommandTests.sample
        let run = await conformInProcess(["replay", sample, "--credential", "jwtSecret=not-hex-secret"])
        #expect(run.code == 64)
        #expect(
            run.err.hasPrefix(
                "Error: --credential jwtSecret=… takes the application's JWT secret key in hex (as the reference's "
                    + "jwtKeys and the suites' jwtSecret write it)"), "\(run.err)")
        #expect(!run.err.contains("not-hex-secret"))
        let keyOnly = await conformInProcess(["replay", sample, "--credential", "jwtKeyId=k1"])
        #expect(keyOnly.code == 64)
        #expect(
            keyOnly.err.hasPrefix(
                "Error: --credential jwtKeyId=… names the key of --credential jwtSecret=…, which is missing"),
            "\(keyOnly.err)")
    }

    @Test func diffTakesFreshIdentitiesWithTheSameMeaning() async throws {
        let scratch = try Scratch()
        let a = try await served(scratch)
        defer { _ = try? a.interrupt() }
        let b = try await served(scratch)
        defer { _ = try? b.interrupt() }
        let sample = TrafficCommandTests.sample
        let args = ["diff", "--target", a.baseURL, "--target", b.baseURL, sample]
        #expect(await conformInProcess(args).code == 0)
        // The recorded persons now own both sides' devices; fresh ones do not.
        let again = await conformInProcess(args + ["--fresh-identities=d1"])
        #expect(again.code == 0, "\(again.out)\(again.err)")
        #expect(again.out.contains("Fresh identities: prefix d1\n"), "\(again.out)")
        #expect(again.out.contains("\(sample): 16 exchanges, 16 the same, 0 different"), "\(again.out)")
        let bad = await conformInProcess(args + ["--fresh-identities=a b"])
        #expect(bad.code == 64)
        #expect(
            bad.err.hasPrefix("Error: --fresh-identities takes a PREFIX of 1 to 32 letters, digits or '-', got 'a b'"),
            "\(bad.err)")
    }
}
