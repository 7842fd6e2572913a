import ConformCore
import ConformProxy
import ConformTestSupport
import ConformTraffic
import Foundation
import Testing

/// `serve --check --client-faults`: the server side fails on purpose, a real client (Python `requests`) recovers or
/// does not, and the check judges the recovery; what was injected is in the recording, marked.
@Suite struct ClientFaultTests {
    /// A device app in Python: registers, logs in, personalizes, then the scenario; `recover` decides whether it
    /// recovers from what the server injects.
    static let client = #"""
        import json, sys, time, requests
        base, scenario, mode = sys.argv[1], sys.argv[2], sys.argv[3]
        APP = {"Authorization": "App conform-app-code", "Content-Type": "application/json"}
        def call(method, path, reg=None, body=None, tries=1):
            headers = dict(APP)
            if reg:
                headers["pushregistrationid"] = reg
            r = None
            for _ in range(tries):
                try:
                    r = requests.request(method, base + path, headers=headers,
                                         data=None if body is None else json.dumps(body), timeout=20)
                except requests.exceptions.ConnectionError:
                    r = None
                    continue
                if r.status_code < 500:
                    break
            return r
        def event(kind, reg, user=None):
            e = {"event": kind, "pushRegId": reg}
            if user:
                e["externalUserId"] = user
            assert requests.post(base + "/_conform/events", json=e, timeout=20).status_code == 200
        def register(token):
            return call("POST", "/mobile/1/appinstance?rt=1", body={"pushServiceToken": token,
                        "pushServiceType": "APNS", "os": "iOS"}).json()["pushRegId"]
        reg = register("apns-python")
        event("login", reg, "ana")
        call("POST", "/mobile/1/appinstance/%s/personalize?forceDepersonalize=0" % reg, reg,
             {"userIdentity": {"externalUserId": "ana"}})
        tries = 3 if mode == "recover" else 1
        if scenario == "logout":
            event("logout", reg)
            r = call("POST", "/mobile/1/appinstance/%s/depersonalize" % reg, reg, tries=tries)
            print("depersonalize", r.status_code if r is not None else "no answer")
        elif scenario == "forgotten":
            r = call("PATCH", "/mobile/1/appinstance/%s" % reg, reg, {"notificationsEnabled": True})
            code = r.json()["requestError"]["serviceException"]["messageId"] if r.status_code == 400 else ""
            print("update", r.status_code, code)
            if code == "NO_REGISTRATION" and mode == "recover":
                reg = register("apns-python")
                call("POST", "/mobile/1/appinstance/%s/personalize?forceDepersonalize=0" % reg, reg,
                     {"userIdentity": {"externalUserId": "ana"}})
            print("user", call("GET", "/mobile/1/appinstance/%s/user?ri=1&rt=0" % reg, reg).status_code)
        elif scenario == "login-again":
            # The first personalize above met the fault: a recovering app sends it again before using the user.
            if mode == "recover":
                call("POST", "/mobile/1/appinstance/%s/personalize?forceDepersonalize=0" % reg, reg,
                     {"userIdentity": {"externalUserId": "ana"}}, tries=3)
            print("user", call("PATCH", "/mobile/1/appinstance/%s/user?ri=0&rt=0" % reg, reg,
                               {"firstName": "Ana"}).status_code)
        elif scenario == "offline":
            # The depersonalize takes the server down: a recovering app tries again, a little later each time.
            event("logout", reg)
            headers = dict(APP, pushregistrationid=reg)
            r, refused = None, 0
            for _ in range(100 if mode == "recover" else 1):
                try:
                    r = requests.post(base + "/mobile/1/appinstance/%s/depersonalize" % reg, headers=headers,
                                      timeout=20)
                    break
                except requests.exceptions.ConnectionError as e:
                    refused += "refused" in str(e)
                    time.sleep(0.1)
            print("depersonalize", r.status_code if r is not None else "no answer", "after refusals" * (refused > 0))
        elif scenario == "reads":
            print(" ".join(str(call("GET", "/mobile/1/appinstance/%s" % reg, reg).status_code) for _ in range(24)))
        """#

    func played(_ scenario: String, _ mode: String, faults: [String], seed: Int? = nil) async throws -> (
        code: Int32, out: String, client: String, recording: String
    ) {
        let scratch = try Scratch()
        let script = scratch.path("app.py")
        try Self.client.write(toFile: script, atomically: true, encoding: .utf8)
        return try await Self.checked(faults: faults, seed: seed) { base in
            // The script lives in the scratch directory as long as the app runs.
            _ = scratch
            return try await ChildProcess.output(
                Tool.path("python3")!, [script, base, scenario, mode], separateStandardError: true)
        }
    }

    /// `serve --check` with `faults`, the app `client` runs against its address, and the check's verdict once the
    /// app is done: the exit code and console of the check, what the app printed, the recording.
    static func checked(
        faults: [String], seed: Int? = nil, client: (String) async throws -> ChildProcess.Outcome
    ) async throws -> (code: Int32, out: String, client: String, recording: String) {
        let scratch = try Scratch()
        let out = scratch.path("checked")
        let child = try await offThePool {
            try ConformProcess(
                ["serve", "--check", "--port", "0", "--out", out] + faults.flatMap { ["--client-faults", $0] }
                    + (seed.map { ["--seed", String($0)] } ?? []),
                scratch: scratch, banner: "Checking an app against the reference implementation on ")
        }
        let app = try await client(child.baseURL)
        let result = try await offThePool { try child.interrupt() }
        #expect(app.status == 0, "\(app.output)\(app.errorOutput)")
        let recording = (try? String(contentsOfFile: out + "/exchanges.jsonl", encoding: .utf8)) ?? ""
        return (result.code, result.out, app.output, recording)
    }

    @Test(.enabled(if: Tool.has("python3"), "needs python3 with requests"))
    func aFailedDepersonalizeMustBeSentAgain() async throws {
        let recovered = try await played("logout", "recover", faults: ["error:M6"])
        #expect(recovered.client == "depersonalize 200\n", "\(recovered.client)")
        #expect(recovered.code == 0, "\(recovered.out)")
        #expect(recovered.out.hasSuffix("Result: 0 violations\n"), "\(recovered.out)")
        // The injected answer is in the recording, marked, beside the retry the reference took.
        #expect(recovered.recording.contains(#"["Conform-Injected-Fault","error:M6:1 (call 1 of 1)"]"#))
        let forgot = try await played("logout", "forget", faults: ["error:M6"])
        #expect(forgot.client == "depersonalize 503\n", "\(forgot.client)")
        #expect(forgot.code == 1, "\(forgot.out)")
        #expect(forgot.out.contains("✘ check-3-logout › depersonalize-retry: "), "\(forgot.out)")
        #expect(!forgot.out.contains("✘ check-3-logout › logout-depersonalize: "), "\(forgot.out)")
        #expect(forgot.out.hasSuffix("Result: 1 violation\n"), "\(forgot.out)")
    }

    /// A reset is a closed connection to the app (no answer at all), a marked 502 in the recording.
    @Test(.enabled(if: Tool.has("python3"), "needs python3 with requests"))
    func aDepersonalizeWhoseConnectionWasResetMustBeSentAgain() async throws {
        let recovered = try await played("logout", "recover", faults: ["reset:M6"])
        #expect(recovered.client == "depersonalize 200\n", "\(recovered.client)")
        #expect(recovered.code == 0, "\(recovered.out)")
        #expect(recovered.recording.contains(#"["Conform-Injected-Fault","reset:M6:1 (call 1 of 1)"]"#))
        let forgot = try await played("logout", "forget", faults: ["reset:M6"])
        #expect(forgot.client == "depersonalize no answer\n", "\(forgot.client)")
        #expect(forgot.code == 1, "\(forgot.out)")
        #expect(forgot.out.contains("✘ check-3-logout › depersonalize-retry: "), "\(forgot.out)")
        #expect(forgot.out.contains("(502) was never taken before the trace ended"), "\(forgot.out)")
    }

    @Test(.enabled(if: Tool.has("python3"), "needs python3 with requests"))
    func aForgottenRegistrationMustBeMadeAgain() async throws {
        let recovered = try await played("forgotten", "recover", faults: ["no-registration:M2"])
        #expect(recovered.client == "update 400 NO_REGISTRATION\nuser 200\n", "\(recovered.client)")
        #expect(recovered.code == 0, "\(recovered.out)")
        let forgot = try await played("forgotten", "forget", faults: ["no-registration:M2"])
        // The server keeps the installation forgotten: the old pushRegId gets NO_REGISTRATION again.
        #expect(forgot.client == "update 400 NO_REGISTRATION\nuser 400\n", "\(forgot.client)")
        #expect(forgot.code == 1, "\(forgot.out)")
        #expect(forgot.out.contains("✘ check-1-registration › registration-recovery: "), "\(forgot.out)")
        #expect(forgot.out.hasSuffix("Result: 1 violation\n"), "\(forgot.out)")
    }

    @Test(.enabled(if: Tool.has("python3"), "needs python3 with requests"))
    func aFailedPersonalizeMustBeSentAgainBeforeTheUserIsUsed() async throws {
        let recovered = try await played("login-again", "recover", faults: ["error:M4"])
        #expect(recovered.code == 0, "\(recovered.out)")
        #expect(recovered.out.hasSuffix("Result: 0 violations\n"), "\(recovered.out)")
        let forgot = try await played("login-again", "forget", faults: ["error:M4"])
        #expect(forgot.code == 1, "\(forgot.out)")
        #expect(forgot.out.contains("✘ check-2-login › personalize-retry: "), "\(forgot.out)")
        #expect(forgot.out.hasSuffix("Result: 1 violation\n"), "\(forgot.out)")
    }

    /// A chance is drawn from the seed: the same seed fails the same calls of the same traffic, in the answers and in
    /// the recording; the seed is printed to run it again.
    @Test(.enabled(if: Tool.has("python3"), "needs python3 with requests"))
    func aChanceIsTheSameForTheSameSeed() async throws {
        let first = try await played("reads", "forget", faults: ["error:M3:50%"], seed: 7)
        let again = try await played("reads", "forget", faults: ["error:M3:50%"], seed: 7)
        #expect(first.out.hasPrefix("Client faults: error:M3:50% (seed 7; --seed 7 again)\n"), "\(first.out)")
        #expect(first.client == again.client, "\(first.client)\(again.client)")
        #expect(first.client.contains("200") && first.client.contains("503"), "\(first.client)")
        func statuses(_ recording: String) -> [String] {
            recording.split(separator: "\n").compactMap { line in
                line.range(of: #""response":\{"status":[0-9]+"#, options: .regularExpression).map { String(line[$0]) }
            }
        }
        #expect(statuses(first.recording).count == 26)  // the registration, the personalize, 24 reads
        #expect(statuses(first.recording) == statuses(again.recording))
        let other = try await played("reads", "forget", faults: ["error:M3:50%"], seed: 8)
        #expect(other.client != first.client, "seed 8 drew what seed 7 drew: \(other.client)")
    }

    /// Without faults the recovering client passes, and the recovery rules had nothing to judge: not exercised.
    @Test(.enabled(if: Tool.has("python3"), "needs python3 with requests"))
    func withoutFaultsTheRecoveryRulesAreNotExercised() async throws {
        let plain = try await played("logout", "recover", faults: [])
        #expect(plain.client == "depersonalize 200\n", "\(plain.client)")
        #expect(plain.code == 0, "\(plain.out)")
        #expect(plain.out.contains("○ check-3-logout › depersonalize-retry: "), "\(plain.out)")
        #expect(plain.out.contains("○ check-2-login › personalize-retry: "), "\(plain.out)")
        #expect(!plain.recording.contains("Conform-Injected-Fault"))
    }

    @Test func aFaultThatCannotBeReadIsAUsageErrorNamingIt() async throws {
        let known = ["M1", "M2", "M6"]
        #expect(
            try ClientFault.parse("error:M6:2", known: known) == ClientFault(kind: .error, endpoint: "M6", count: 2))
        #expect(try ClientFault.parse("slow:M1=1.5s", known: known).delay == .milliseconds(1500))
        #expect(try ClientFault.parse("timeout", known: known) == ClientFault(kind: .timeout))
        #expect(
            try ClientFault.parse("offline:M6=30s", known: known)
                == ClientFault(kind: .offline, endpoint: "M6", delay: .seconds(30)))
        for (bad, message) in [
            ("error:M99", "'M99' is not an endpoint id of the protocol (M1, M2, M6, or *)"),
            ("error:M6:0", "'0' is not a count from 1 to 1000 or a chance like 30%"),
            ("error:M6:0%", "'0%' is not a chance from 1% to 100%"),
            ("slow", "slow needs a delay: slow=3s or slow:M1=3s"),
            ("error=3s", "only slow and offline take a duration (=DURATION)"),
            ("offline:M6", "offline needs a window: offline=30s or offline:M6=30s"),
            ("offline:M6:2=3s", "offline opens one window, at the first call it matches: no count"),
            ("slow=500s", "'500s' is not a delay from 1ms to 120s; write it like 500ms or 3s"),
            (
                "explode",
                "expected KIND[:ENDPOINT][:N] with KIND one of error, timeout, reset, no-registration, slow, offline"
            ),
        ] {
            #expect(throws: ClientFaultError(bad, message)) { try ClientFault.parse(bad, known: known) }
        }
        let run = await conformInProcess(["serve", "--client-faults", "error:M6"])
        #expect(run.code == 64)
        #expect(run.err.contains("--client-faults and --seed need --check"), "\(run.err)")
        let typo = await conformInProcess(["serve", "--check", "--client-faults", "eror:M6"])
        #expect(typo.code == 64)
        #expect(typo.err.contains("--client-faults eror:M6: expected KIND[:ENDPOINT][:N]"), "\(typo.err)")
    }
}
