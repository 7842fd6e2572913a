import ConformCore
import ConformTestSupport
import Foundation
import Testing

@testable import ConformTraffic

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// A writer process is killed with SIGKILL mid-stream; the recording stays readable up to the last complete line.
@Suite struct KillRecoveryTests {
    static let childVariable = "CONFORM_TRAFFIC_KILL_CHILD_DIR"
    /// The directory the parent test gave this process, when it is the child.
    static let childDirectory = ProcessInfo.processInfo.environment[childVariable]
    /// The test program, when this test can start it again as the child.
    static let testProgram: String? = {
        let program = CommandLine.arguments[0]
        return program.hasSuffix(".xctest") || FileManager.default.isExecutableFile(atPath: program) ? program : nil
    }()

    /// In the child process only: write exchanges from 8 tasks until killed.
    @Test(.enabled(if: childDirectory != nil, "runs only in the child process that recordingSurvivesKill9 starts"))
    func childWriter() async throws {
        let dir = try #require(Self.childDirectory)
        let writer = try RecordingWriter(directory: dir)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    var i = 0
                    while true {
                        let body = Data(
                            "{\"task\":\(t),\"i\":\(i),\"email\":\"p\(t)@mail.example.org\",\"pad\":\"\(String(repeating: "z", count: 2000 + i % 3000))\"}"
                                .utf8)
                        try writer.append(
                            upstream: "mobile",
                            request: HTTPRequest(
                                method: .post, url: "/mobile/1/appinstance/t\(t)/user/events/custom",
                                headerFields: ["X-I": "\(t)-\(i)"], body: body),
                            response: HTTPResponse(status: 200, body: body), startedAt: Date(), durationMs: 0)
                        i += 1
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test(
        .enabled(if: childDirectory == nil, "the child process only writes"),
        .enabled(if: testProgram != nil, "the test program cannot be started again as a child"))
    func recordingSurvivesKill9() async throws {
        let bundle = try #require(Self.testProgram)
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: bundle)
        process.arguments = ["--testing-library", "swift-testing", "--filter", "KillRecoveryTests/childWriter"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childVariable] = dir
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let exit = try ProcessExit(starting: process)
        // Wait (without a deadline on correctness) until the child has written a good number of exchanges.
        let file = dir + "/exchanges.jsonl"
        let size = try await offThePool { () -> Int in
            var size = 0
            for _ in 0..<600 where size < 2_000_000 {
                usleep(50_000)
                size = ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber)?.intValue ?? 0
            }
            kill(process.processIdentifier, SIGKILL)
            exit.wait()
            return size
        }
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(size > 0, "the child process wrote nothing")

        let reader = try RecordingReader(path: dir)
        var count = 0
        var lastSeq = 0
        while let e = try reader.next() {
            count += 1
            #expect(e.seq == lastSeq + 1)
            lastSeq = e.seq
            #expect(e.request.body == e.response.body)
            let json = try JSONValue.parse(e.request.body)
            #expect(json["email"]?.stringValue?.hasSuffix("@redacted.invalid") == true)
        }
        #expect(count > 100)
        if let tail = reader.truncatedTail { #expect(tail.line == count + 1) }
    }
}
