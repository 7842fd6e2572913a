import ConformTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `conform diff --timeout`: a side that never answers is given up after the time asked for, not a fixed one.
@Suite struct DiffTimeoutTests {
    /// A loopback socket that listens and never accepts: the kernel takes connections, nothing ever answers.
    final class SilentListener {
        let socket: Int32
        let port: UInt16

        init() throws {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(socket, $0, length) == 0 && listen(socket, 16) == 0 && getsockname(socket, $0, &length) == 0
                }
            }
            guard bound else {
                close(socket)
                throw ProcessFailure("cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
            }
            self.socket = socket
            port = UInt16(bigEndian: address.sin_port)
        }

        deinit { close(socket) }
    }

    static let har = #"""
        {"log":{"version":"1.2","creator":{"name":"test","version":"1"},"entries":[{"startedDateTime":"2026-12-03T10:00:00Z","time":1,
        "request":{"method":"GET","url":"http://mobile.example/mobile/1/appinstance/abc?ri=true","httpVersion":"HTTP/1.1",
        "headers":[{"name":"Authorization","value":"App conform-app-code"}],"queryString":[],"cookies":[],"headersSize":-1,"bodySize":0},
        "response":{"status":400,"statusText":"","httpVersion":"HTTP/1.1","headers":[{"name":"Content-Type","value":"application/json"}],
        "cookies":[],"content":{"size":2,"mimeType":"application/json","text":"{}"},"redirectURL":"","headersSize":-1,"bodySize":2},
        "cache":{},"timings":{"send":0,"wait":1,"receive":0}}]}}
        """#

    @Test func aSideThatNeverAnswersIsGivenUpAfterTheTimeoutAskedFor() async throws {
        let silent = try SilentListener()
        let scratch = try Scratch()
        let har = scratch.path("one.har")
        try Self.har.write(toFile: har, atomically: true, encoding: .utf8)
        let diff = try await ChildProcess.output(
            TestPaths.conformBinary.path,
            ["diff", "--target", "builtin", "--target", "http://127.0.0.1:\(silent.port)", har, "--timeout", "1"],
            separateStandardError: true)
        #expect(diff.status == 1, "\(diff.output)\(diff.errorOutput)")
        // curl names the time it waited: the second asked for, not the default ten.
        #expect(diff.output.contains("Operation timed out after 1"), "\(diff.output)")
        #expect(diff.output.contains("\(har): 1 exchange, 0 the same, 1 different\n"), "\(diff.output)")
        withExtendedLifetime(silent) {}
    }
}
