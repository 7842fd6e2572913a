import ConformReport
import ConformTestSupport
import Foundation
import Testing

/// No secret reaches a report, a bundle, a banner or `ps` (issue 33, point 5), each tried against the built binary:
/// the variables a run sends as credentials are learned from where the suites send them, a bundle's log is redacted
/// whatever order its exchanges are written in, percent-encoded emails are redacted and scanned, `serve` and
/// `check` show codes masked, and what the command line would show in `ps` has an environment path.
@Suite struct SecretLeakTests {
    /// Application codes named by no credential word (`restrictedAppCode` is not `appCode`), given with `--var`.
    static let codes = [
        "restrictedAppCode": "vendor-restricted-code-0a1b2c", "jwtAppCode": "vendor-jwt-code-3d4e5f",
        "restrictedAccessAppCode": "vendor-access-code-6a7b8c",
    ]

    /// Runs the built `conform` with `args` and `environment` added, from `directory` (the repository root).
    func conform(
        _ args: [String], environment: [String: String] = [:], in directory: URL = TestPaths.root
    ) async throws -> (code: Int32, out: String, err: String) {
        let binary = TestPaths.conformBinary.path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            return (-1, "", "\(binary) is missing; build it with 'swift build' before 'swift test --skip-build'")
        }
        let env = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let run = try await ChildProcess.output(
            binary, args, environment: env, directory: directory, separateStandardError: true)
        return (run.status, run.output, run.errorOutput)
    }

    /// Every file under `directory`, by its path inside it, read as text.
    func files(under directory: String) -> [(path: String, text: String)] {
        let entries = (try? FileManager.default.subpathsOfDirectory(atPath: directory)) ?? []
        return entries.sorted().compactMap { entry in
            let path = (directory as NSString).appendingPathComponent(entry)
            guard let data = FileManager.default.contents(atPath: path) else { return nil }
            return (entry, String(decoding: data, as: UTF8.self))
        }
    }

    /// A suite whose first exchange carries `senderCode` only in its body (a push's `sender`); its second sends it
    /// as `Authorization: App …`, which makes it a credential.
    static let senderFirst = """
        suite: sender-first
        title: "A credential a body carries before any header does"
        step: 6-push
        description: The first exchange names the sender in its body; only the second sends the code as a credential.
        vars:
          senderCode: conform-app-code
        steps:
          - name: a push names its sender
            request:
              method: POST
              url: "{{ backend }}/push/3/messages"
              json: {messages: [{sender: "{{ senderCode }}", text: hello}]}
            expect:
              status: 4xx
          - name: the app registers with the code
            request:
              method: POST
              url: "{{ mobile }}/mobile/1/appinstance"
              query: {ri: "true"}
              headers: {Authorization: "App {{ senderCode }}"}
              json: {pushServiceToken: "fcm-sender-first", pushServiceType: Firebase, os: Android}
            expect:
              status: 4xx

        """

    @Test func codesTheSuitesSendAsCredentialsAreInNoReportAndNoBundleFile() async throws {
        let scratch = try Scratch()
        let bundle = scratch.path("bundle")
        let run = try await conform(
            [
                "run", "suites/07-restricted-profile.yaml", "suites/07-jwt-profile.yaml",
                "suites/07-restricted-access.yaml", "--no-color", "--report", "json:" + scratch.path("r.json"),
                "--report", "junit:" + scratch.path("r.xml"), "--report", "html:" + scratch.path("r.html"),
                "--bundle", bundle,
            ] + Self.codes.sorted { $0.key < $1.key }.flatMap { ["--var", "\($0.key)=\($0.value)"] })
        // The reference knows none of these codes: the run does not conform, and writes every report.
        #expect(run.code == 1, "\(run.out)\(run.err)")
        let written = files(under: scratch.url.path)
        for name in [
            "r.json", "r.xml", "r.html", "bundle/bundle.json", "bundle/report.json", "bundle/log/exchanges.jsonl",
        ] {
            #expect(written.contains { $0.path == name }, "\(name) is missing: \(written.map(\.path))")
        }
        for (name, text) in written + [("stdout", run.out), ("stderr", run.err)] {
            for (variable, code) in Self.codes {
                #expect(!text.contains(code), "\(name) holds \(variable) in clear")
            }
        }
        // Masked in the provenance, and left to the suites' defaults in bundle.json.
        let report = try #require(written.first { $0.path == "r.json" }?.text)
        #expect(report.contains(#""name" : "restrictedAppCode","#) || report.contains(#""name": "restrictedAppCode""#))
        #expect(report.contains("••••1b2c") && report.contains("••••4e5f") && report.contains("••••7b8c"))
        let info = try #require(written.first { $0.path == "bundle/bundle.json" }?.text)
        #expect(!info.contains("AppCode"), "bundle.json names a credential variable: \(info)")
    }

    @Test func aCodeABodyCarriesBeforeAnyHeaderIsRedactedInTheBundleLog() async throws {
        let scratch = try Scratch()
        try Self.senderFirst.write(toFile: scratch.path("sender.yaml"), atomically: true, encoding: .utf8)
        let code = "vendor-sender-code-9a8b7c"
        let bundle = scratch.path("bundle")
        let run = try await conform([
            "run", scratch.path("sender.yaml"), "--var", "senderCode=\(code)", "--bundle", bundle, "--no-color",
        ])
        #expect(run.code == 0, "\(run.out)\(run.err)")
        let log = try String(contentsOfFile: bundle + "/log/exchanges.jsonl", encoding: .utf8)
        let lines = log.split(separator: "\n")
        // The steps run in order: the push, whose body alone holds the code, is written first.
        #expect(lines.count == 2)
        #expect(lines.first?.contains(#"\"sender\":\"redacted-"#) == true, "\(log)")
        for (name, text) in files(under: bundle) {
            #expect(!text.contains(code), "\(name) holds the code in clear")
        }
        let verified = try await conform(["verify", bundle, "--allow-partial", "--no-color"])
        #expect(verified.code == 0, "\(verified.out)\(verified.err)")
    }

    /// A HAR whose URLs and form body write emails percent-encoded, once and twice.
    static let encodedHAR = """
        {"log":{"version":"1.2","creator":{"name":"t","version":"1"},"entries":[
        {"startedDateTime":"2026-01-01T00:00:00.000Z","time":1,"request":{"method":"GET","url":"http://api.example.test/people/2/persons?email=jane.doe%40example.com&next=%2Fback%3Fuser%3Djohn.roe%2540example.org","httpVersion":"HTTP/1.1","headers":[],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},"response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[{"name":"Content-Type","value":"application/json"}],"cookies":[],"content":{"size":2,"mimeType":"application/json","text":"{}"},"redirectURL":"","headersSize":-1,"bodySize":2},"cache":{},"timings":{"send":0,"wait":1,"receive":0}},
        {"startedDateTime":"2026-01-01T00:00:01.000Z","time":1,"request":{"method":"POST","url":"http://api.example.test/login","httpVersion":"HTTP/1.1","headers":[{"name":"Content-Type","value":"application/x-www-form-urlencoded"}],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":40,"postData":{"mimeType":"application/x-www-form-urlencoded","text":"login=max.poe%40example.net&name=Max+Poe"}},"response":{"status":200,"statusText":"OK","httpVersion":"HTTP/1.1","headers":[{"name":"Content-Type","value":"application/json"}],"cookies":[],"content":{"size":2,"mimeType":"application/json","text":"{}"},"redirectURL":"","headersSize":-1,"bodySize":2},"cache":{},"timings":{"send":0,"wait":1,"receive":0}}
        ]}}

        """

    @Test func percentEncodedEmailsAreRedactedInTheirOwnFormAndFoundByScan() async throws {
        let scratch = try Scratch()
        let har = scratch.path("encoded.har")
        try Self.encodedHAR.write(toFile: har, atomically: true, encoding: .utf8)
        let scan = try await conform(["scan", har])
        #expect(scan.code == 1, "\(scan.out)\(scan.err)")
        for place in ["encoded.har:2:136", "encoded.har:2:181", "encoded.har:3:360"] {
            #expect(scan.out.contains("--> \(har.dropLast("encoded.har".count))\(place)\n"), "\(scan.out)")
        }
        #expect(scan.out.hasSuffix("Result: 3 findings\n"), "\(scan.out)")

        let recording = scratch.path("recording")
        let imported = try await conform(["import", har, "--out", recording])
        #expect(imported.code == 0, "\(imported.err)")
        let log = try String(contentsOfFile: recording + "/exchanges.jsonl", encoding: .utf8)
        for secret in ["jane.doe", "john.roe", "max.poe", "example.com", "example.org", "example.net"] {
            #expect(!log.contains(secret), "\(secret) is left in \(log)")
        }
        // Each replaced as it was written: encoded once, encoded twice, in a form; the rest kept.
        #expect(log.contains("?email=user-"), "\(log)")
        #expect(log.contains("%40redacted.invalid&next=%2Fback%3Fuser%3Duser-"), "\(log)")
        #expect(log.contains("%2540redacted.invalid\""), "\(log)")
        #expect(log.contains("login=user-") && log.contains("%40redacted.invalid&name=Max+Poe"), "\(log)")
        let rescan = try await conform(["scan", recording])
        #expect(rescan.code == 0, "\(rescan.out)\(rescan.err)")
    }

    @Test func serveShowsTheCodesOfItsConfigurationMasked() async throws {
        let scratch = try Scratch()
        let config = scratch.path("reference.yaml")
        try """
        applications:
          - id: vendor
            applicationCode: vendor-serve-app-code-11aa22
            apiKey: vendor-serve-api-key-33bb44
            userDataMode: all
          - id: default
            applicationCode: conform-app-code
            apiKey: conform-api-key
            userDataMode: all

        """.write(toFile: config, atomically: true, encoding: .utf8)
        let child = try await offThePool {
            try ConformProcess(
                ["serve", "--port", "0", "--config", config], scratch: scratch,
                banner: "Serving the reference implementation on ")
        }
        let result = try await offThePool { try child.interrupt() }
        #expect(
            result.out.contains(
                "Applications: vendor (all): applicationCode ••••aa22, API key ••••bb44; "
                    + "default (all): applicationCode conform-app-code, API key conform-api-key\n"),
            "\(result.out)")
        #expect(!result.out.contains("vendor-serve") && !result.err.contains("vendor-serve"), "\(result.out)")
    }

    @Test func codesMapsAndVariablesHaveAnEnvironmentPath() async throws {
        let scratch = try Scratch()
        let har = scratch.path("encoded.har")
        try Self.encodedHAR.write(toFile: har, atomically: true, encoding: .utf8)
        // `check` reads the codes from the environment, and names them masked.
        let check = try await conform(
            ["check", har],
            environment: ["CONFORM_RESTRICTED": "vendor-env-code-0001", "CONFORM_JWT": " vendor-env-code-0002 "])
        #expect(
            check.err.contains(
                "warning: --restricted ••••0001: this application code never appears in the trace, in clear or as a "
                    + "pseudonym\n"), "\(check.err)")
        #expect(check.err.contains("warning: --jwt ••••0002: this application code never appears"), "\(check.err)")
        #expect(!check.err.contains("vendor-env-code"), "\(check.err)")

        // `diff` reads --map pairs from CONFORM_MAP_*, and says which variable holds no pair.
        let map = try await conform(
            ["diff", "--target", "builtin", "--target", "builtin", har], environment: ["CONFORM_MAP_ONE": "no-pair"])
        #expect(map.code == 64, "\(map.out)\(map.err)")
        #expect(map.err.contains("the environment's CONFORM_MAP_ONE takes OLD=NEW, as --map does"), "\(map.err)")

        // `mock` reads suite variables from CONFORM_VAR_*: a run sending another code does not conform, one sending
        // the same code does.
        let suite = scratch.path("sender.yaml")
        try Self.senderFirst.replacingOccurrences(of: "status: 4xx", with: "status: 200").write(
            toFile: suite, atomically: true, encoding: .utf8)
        let code = "vendor-mock-code-5e6f7a"
        let mock = try await offThePool {
            try ConformProcess(
                ["mock", suite, "--port", "0"], scratch: scratch, banner: "Mocking sender-first",
                environment: ["CONFORM_VAR_senderCode": code])
        }
        // Stopped below; on a failure before that, the process object ends it when it goes.
        let other = try await conform(["run", suite, "--target", mock.baseURL, "--no-color"])
        #expect(other.code == 1, "\(other.out)\(other.err)")
        let same = try await conform(
            ["run", suite, "--target", mock.baseURL, "--no-color"], environment: ["CONFORM_VAR_senderCode": code])
        #expect(same.code == 0, "\(same.out)\(same.err)")
        // The mock's report shows the code it expected masked, as every report does.
        let played = try await offThePool { try mock.interrupt() }
        #expect(played.out.contains("expected: \"••••6f7a\""), "\(played.out)")
        #expect(!(played.out + played.err).contains(code), "\(played.out)\(played.err)")
    }
}
