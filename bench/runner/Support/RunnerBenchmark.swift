import ConformCore
import ConformCurl
import ConformMobileMessaging
import ConformReport
import ConformRunner
import ConformServer
import Foundation

/// Measures what the runner costs per checked exchange, and how fast suites load.
public enum RunnerBenchmark {
    /// Answers every request with a small JSON document, like a fast registration endpoint.
    struct FastHandler: HTTPHandler {
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            .json(200, ["pushRegId": "0f8fad5b-d9cb-469f-a165-70867728950e", "regEnabled": true, "isPrimary": false])
        }
    }

    static func suite(steps: Int) -> String {
        var yaml = """
            suite: bench
            title: N checked exchanges over one connection
            vars: {appCode: conform-app-code}
            steps:

            """
        for i in 0..<steps {
            yaml += """
                  - name: exchange \(i)
                    request:
                      method: POST
                      url: "{{ mobile }}/mobile/1/appinstance"
                      query: {ri: "true"}
                      headers: {Authorization: "App {{ appCode }}"}
                      json: {pushServiceToken: "t-\(i)", pushServiceType: Firebase}
                    expect:
                      status: 200
                      headers: {Content-Type: {$regex: "^application/json"}}
                      json: {pushRegId: {$type: string}, regEnabled: true}
                    capture: {pushRegId: $.pushRegId}

                """
        }
        return yaml
    }

    public static func main(_ args: [String]) async -> Int32 {
        let counts = args.dropFirst().compactMap { Int($0) }
        let sizes = counts.isEmpty ? [100, 1000] : counts
        do {
            let server = try HTTPServer(handler: FastHandler())
            try server.start()
            defer { server.stop() }
            let curl = CurlTransport(timeout: .seconds(10))
            let clock = ContinuousClock()
            for n in sizes {
                let suite = try SuiteLoader(profile: .mobileMessaging).load(
                    bytes: Array(suite(steps: n).utf8), file: "bench.yaml")
                let plan = RunPlan(
                    suites: [suite], targetDefaults: ["mobile": server.baseURL, "backend": server.baseURL])
                // Warm up the connection and the code paths.
                _ = await Runner(transport: curl).run(RunPlan(suites: [suite], targetDefaults: plan.targetDefaults))
                var viaCurl: [Double] = []
                var inProcess: [Double] = []
                var rawCurl: [Double] = []
                for _ in 0..<3 {
                    var start = clock.now
                    let result = await Runner(transport: curl).run(plan)
                    viaCurl.append(micros(clock.now - start) / Double(n))
                    guard result.exitCode == 0 else {
                        FileHandle.standardError.write(Data("benchmark run did not conform\n".utf8))
                        return 1
                    }
                    start = clock.now
                    _ = await Runner(transport: InProcessTransport(FastHandler())).run(plan)
                    inProcess.append(micros(clock.now - start) / Double(n))
                    let request = try suite.flows[0].steps[0].renderedRequest(baseURL: server.baseURL)
                    start = clock.now
                    for _ in 0..<n { _ = try await curl.send(request) }
                    rawCurl.append(micros(clock.now - start) / Double(n))
                }
                print(
                    String(
                        format:
                            "N=%d  runner+curl %.1f us/exchange  runner in-process %.1f us/exchange  curl transport alone %.1f us/exchange  (medians of 3)",
                        n, median(viaCurl), median(inProcess), median(rawCurl)))
            }
            let big = suite(steps: 10000)
            var rates: [Double] = []
            for _ in 0..<3 {
                let start = clock.now
                _ = try SuiteLoader(profile: .mobileMessaging).load(
                    bytes: Array(big.utf8), file: "big.yaml")
                rates.append(Double(big.utf8.count) / 1_000_000 / (micros(clock.now - start) / 1e6))
            }
            print(
                String(
                    format: "suite load: %.1f MB suite (10000 steps) at %.1f MB/s (median of 3)",
                    Double(big.utf8.count) / 1e6, median(rates)))
            return 0
        } catch {
            FileHandle.standardError.write(Data("benchmark failed: \(error)\n".utf8))
            return 1
        }
    }

    static func micros(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12
    }

    static func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
}

extension Step {
    func renderedRequest(baseURL: String) throws -> HTTPRequest {
        guard case .exchange(let e) = action else { throw TransportError(.other, "not an exchange") }
        return try e.request.render(
            in: TemplateScope(values: ["mobile": .string(baseURL), "appCode": "conform-app-code"]))
    }
}
