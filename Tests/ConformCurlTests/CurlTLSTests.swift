import ConformCore
import ConformCurl
import ConformTestSupport
import Foundation
import Testing

/// `CurlTransport` over HTTPS, against a Python server with a self-signed certificate.
@Suite struct CurlTLSTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Adapters/tls_server.py").path

    /// Starts the server and returns it with its port, read from its first output line.
    func startServer() throws -> (SpawnedProcess, UInt16) {
        let input = Pipe()
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", Self.script]
        let out = Pipe()
        process.standardOutput = out
        // The server also exits when this pipe closes: when the test stops it, or when the test process dies.
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while let byte = try out.fileHandleForReading.read(upToCount: 1), let b = byte.first, b != 0x0A {
            line.append(b)
        }
        let port = try #require(UInt16(String(decoding: line, as: UTF8.self)), "the TLS test server printed no port")
        return (process, port)
    }

    @Test func httpsWorksAndAnUntrustedCertificateIsRefusedUnlessInsecure() async throws {
        let (server, port) = try await Task.detached { try self.startServer() }.value
        defer {
            server.terminate()
            try? (server.standardInput as? Pipe)?.fileHandleForWriting.close()
        }
        let url = "https://127.0.0.1:\(port)/status"
        let insecure = try await CurlTransport(timeout: .seconds(20), insecure: true).send(
            HTTPRequest(method: .get, url: url))
        #expect(insecure.status == 200)
        #expect(try JSONValue.parse(insecure.body) == ["tls": true])
        do {
            _ = try await CurlTransport(timeout: .seconds(20)).send(HTTPRequest(method: .get, url: url))
            Issue.record("a self-signed certificate was accepted without --insecure")
        } catch let error as TransportError {
            #expect(error.message.contains(url))
        }
    }
}
