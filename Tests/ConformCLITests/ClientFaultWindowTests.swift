import ConformTestSupport
import Foundation
import Testing

/// The faults that take the server away rather than answer badly: an offline window (`offline`) under
/// `serve --check`, and `mock --client-faults`, where a failed call leaves its suite step to be played again.
@Suite struct ClientFaultWindowTests {
    /// An offline window: the call that opens it has its connection closed, and until the window ends connections
    /// are refused (the listener is closed, not answering); then the server listens on the same port again.
    @Test(.enabled(if: Tool.has("python3"), "needs python3 with requests"))
    func anOfflineServerRefusesConnectionsUntilTheWindowEnds() async throws {
        let recovered = try await ClientFaultTests().played("offline", "recover", faults: ["offline:M6=2s"])
        // The retries met refused connections, and the depersonalize went through once the window was over.
        #expect(recovered.client == "depersonalize 200 after refusals\n", "\(recovered.client)")
        #expect(recovered.code == 0, "\(recovered.out)")
        #expect(recovered.out.hasPrefix("Client faults: offline:M6=2s\n"), "\(recovered.out)")
        let over = #"Client faults: offline window of 2s over: listening again on port [0-9]+\n"#
        #expect(recovered.out.range(of: over, options: .regularExpression) != nil, "\(recovered.out)")
        #expect(recovered.out.hasSuffix("Result: 0 violations\n"), "\(recovered.out)")
        #expect(
            recovered.recording.contains(
                #"["Conform-Injected-Fault","offline:M6=2s (the server goes down from this call)"]"#),
            "\(recovered.recording)")
        let forgot = try await ClientFaultTests().played("offline", "forget", faults: ["offline:M6=2s"])
        #expect(forgot.client == "depersonalize no answer \n", "\(forgot.client)")
        #expect(forgot.code == 1, "\(forgot.out)")
        #expect(forgot.out.contains("✘ check-3-logout › depersonalize-retry: "), "\(forgot.out)")
        #expect(forgot.out.hasSuffix("Result: 1 violation\n"), "\(forgot.out)")
    }

    /// `conform mock` with faults, played by `conform run`: a client that sends the failed call again completes
    /// the suite; one that does not leaves its step unplayed, and the mock says so.
    @Test func aMockedStepAFaultFailedWaitsForTheCallAgain() async throws {
        let binary = TrafficCommandTests.root + "/.build/debug/conform"
        func mocked(_ fault: String, retry: Int) async throws -> (mock: (code: Int32, out: String), run: String) {
            let scratch = try Scratch()
            let child = try await offThePool {
                try ConformProcess(
                    ["mock", "suites/02-login.yaml", "--port", "0", "--client-faults", fault],
                    scratch: scratch, banner: "Mocking ")
            }
            let run = try await ChildProcess.output(
                binary, ["run", "suites/02-login.yaml", "--target", child.baseURL, "--retry", String(retry)],
                directory: URL(fileURLWithPath: TrafficCommandTests.root))
            let mock = try await offThePool { try child.interrupt() }
            return ((mock.code, mock.out), run.output)
        }
        let recovered = try await mocked("offline:M4=2s", retry: 6)
        #expect(recovered.mock.out.hasPrefix("Client faults: offline:M4=2s\n"), "\(recovered.mock.out)")
        #expect(recovered.mock.code == 0, "\(recovered.mock.out)\n--- run:\n\(recovered.run)")
        #expect(recovered.mock.out.hasSuffix("Result: the client followed the suite\n"), "\(recovered.mock.out)")
        // libcurl sends a request again by itself when a kept-alive connection closes before any answer, so the
        // client that does not recover meets an answer it must act on: a 503.
        let forgot = try await mocked("error:M4", retry: 0)
        #expect(forgot.mock.code == 1, "\(forgot.mock.out)")
        #expect(forgot.mock.out.contains("        no request reached this step\n"), "\(forgot.mock.out)")
        #expect(forgot.mock.out.hasSuffix("Result: the client did not follow the suite\n"), "\(forgot.mock.out)")
    }
}
