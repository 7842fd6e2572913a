import ConformCapture
import ConformCore
import ConformReference
import ConformServer
import ConformTestSupport
import ConformTraffic
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension LoopbackCaptureTests {
    /// Sends one request on `client` and reads until one whole response (a JSON body) came, or 10 s pass.
    static func exchange(_ client: RawClient, _ request: String) -> String {
        client.send(Array(request.utf8))
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let text = String(decoding: reply, as: UTF8.self)
            if let head = text.range(of: "\r\n\r\n"),
                let length = text.range(of: "Content-Length: ", options: .caseInsensitive),
                let value = Int(text[length.upperBound...].prefix { $0.isNumber }),
                text.utf8.count - text.utf8.distance(from: text.startIndex, to: head.upperBound) >= value
            {
                return text
            }
            let count = recv(client.fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            reply.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: reply, as: UTF8.self)
    }

    /// Two kept-alive connections (a pool) opened and used before tcpdump starts, then used three more times each:
    /// the capture has no SYN. `conform import` names each stream on its own line and exits 2 with advice; with
    /// `--resync` it reads the six exchanges, marked, and counts them per stream.
    @Test(.timeLimit(.minutes(2)))
    func aPoolConnectedBeforeTheCaptureIsReadWithResync() async throws {
        let scratch = try Scratch("capture-resync")
        let reference = try HTTPServer(handler: ReferenceImplementation())
        try reference.start()
        defer { reference.stop() }
        let port = reference.boundPort
        let pool = [try RawClient(port: port), try RawClient(port: port)]
        func get(_ n: Int) -> String {
            "GET /mobile/1/appinstance/pool-\(n)/user HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
                + "Authorization: App conform-app-code\r\npushregistrationid: pool-\(n)\r\n\r\n"
        }
        for client in pool {
            let before = Self.exchange(client, get(0))
            try #require(before.hasPrefix("HTTP/1.1 "), "\(before)")
        }
        let capture = scratch.path("pool.pcap")
        let dump = try TCPDump(filter: "tcp port \(port)", file: capture, scratch: scratch)
        defer { dump.stop() }
        for n in 1...6 {
            let answer = Self.exchange(pool[(n - 1) % 2], get(n))
            try #require(answer.hasPrefix("HTTP/1.1 "), "\(answer)")
        }
        dump.stop()
        let out = scratch.path("plain")
        let plain = try await ChildProcess.output(TestPaths.conformBinary.path, ["import", capture, "--out", out])
        #expect(plain.status == 2, "\(plain.output)")
        #expect(plain.output.contains("Imported 0 exchanges"), "\(plain.output)")
        let streamLines = plain.output.split(separator: "\n").filter { $0.hasPrefix("  stream ") }
        #expect(streamLines.count == 2, "\(plain.output)")
        #expect(streamLines.first?.hasPrefix("  stream 1 127.0.0.1:") == true, "\(plain.output)")
        #expect(streamLines.last?.hasPrefix("  stream 2 127.0.0.1:") == true, "\(plain.output)")
        #expect(streamLines.allSatisfy { $0.contains(" → 127.0.0.1:\(port): 0 exchanges read;") }, "\(plain.output)")
        #expect(plain.output.contains("2 TCP streams, all without their beginning"), "\(plain.output)")
        #expect(plain.output.contains("help: pass --resync"), "\(plain.output)")
        let resynced = scratch.path("resynced")
        let outcome = try await ChildProcess.output(
            TestPaths.conformBinary.path, ["import", capture, "--out", resynced, "--resync", "--no-redact"])
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.output.contains("Imported 6 exchanges"), "\(outcome.output)")
        let imported = try exchanges(in: resynced)
        #expect(imported.map(\.request.url) == (1...6).map { "/mobile/1/appinstance/pool-\($0)/user" })
        #expect(imported.allSatisfy { $0.resynchronised })
        #expect(outcome.output.contains("  3 exchanges resynchronised in stream 1 127.0.0.1:"), "\(outcome.output)")
        #expect(outcome.output.contains("  3 exchanges resynchronised in stream 2 127.0.0.1:"), "\(outcome.output)")
    }
}
