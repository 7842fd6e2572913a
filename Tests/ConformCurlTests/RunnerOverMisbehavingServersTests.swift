import ConformCore
import ConformCurl
import ConformReport
import ConformRunner
import ConformTestSupport
import Foundation
import Testing

/// A whole run over real sockets against servers that misbehave: each step fails with its cause, the run goes on.
@Suite struct RunnerOverMisbehavingServersTests {
    /// One suite per misbehaving server, each a single exchange expecting a JSON answer.
    func suite(_ id: String, base: String) throws -> Suite {
        try SuiteLoader().load(
            bytes: Array(
                """
                suite: \(id)
                title: \(id)
                steps:
                  - name: register
                    request: {method: POST, url: "\(base)/mobile/1/appinstance", json: {pushServiceToken: t}}
                    expect: {status: 200, json: {pushRegId: {$type: string}}}
                  - name: never reached
                    request: {url: "\(base)/x"}
                """.utf8), file: "\(id).yaml")
    }

    @Test func everyFaultyServerFailsItsOwnStepWithinTheTimeout() async throws {
        let hang = try RawServer { connection in
            _ = connection.readRequest()
            connection.waitForClose()
        }
        let reset = try RawServer { connection in _ = connection.readRequest() }
        let garbage = try RawServer { connection in
            _ = connection.readRequest()
            connection.write([0x00, 0xFF] + Array("not http at all\r\n\r\n".utf8))
        }
        let invalidJSON = try RawServer { connection in
            _ = connection.readRequest()
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{\"pushReg")
        }
        let good = try RawServer { connection in
            _ = connection.readRequest()
            let body = #"{"pushRegId":"r1"}"#
            connection.write(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            )
        }
        defer { [hang, reset, garbage, invalidJSON, good].forEach { $0.stop() } }
        let refusing = try RefusingPort()
        let suites = [
            try suite("refuses", base: refusing.baseURL),
            try suite("hangs", base: hang.baseURL),
            try suite("resets", base: reset.baseURL),
            try suite("garbage", base: garbage.baseURL),
            try suite("invalid-json", base: invalidJSON.baseURL),
            try suite("good", base: good.baseURL),
        ]
        let plan = RunPlan(suites: suites, exchangeTimeout: .milliseconds(500))
        let result = await Runner(transport: CurlTransport()).run(plan)
        withExtendedLifetime(refusing) {}
        let first = Dictionary(uniqueKeysWithValues: result.suites.map { ($0.group.id, $0.steps[0]) })
        #expect(first["refuses"]?.verdict == .error)
        #expect(first["refuses"]?.error?.contains("connection refused") == true)
        #expect(first["hangs"]?.verdict == .fail)
        #expect(first["hangs"]?.error?.contains("timeout") == true)
        #expect(first["resets"]?.verdict == .fail)
        #expect(first["resets"]?.error?.hasPrefix("no response: ") == true)
        #expect(first["garbage"]?.verdict == .fail)
        #expect(first["garbage"]?.error?.contains("invalid response") == true)
        #expect(first["invalid-json"]?.verdict == .fail)
        #expect(first["invalid-json"]?.failures.first?.mismatches.first?.note?.hasPrefix("invalid JSON") == true)
        #expect(first["good"]?.verdict == .pass)
        // Every flow that failed skipped its second step; the good one went on to it.
        for s in result.suites where s.group.id != "good" { #expect(s.steps[1].verdict == .skipped) }
        #expect(result.suites.first { $0.group.id == "good" }?.steps[1].verdict != .skipped)
        #expect(result.exitCode == 2)
    }
}
