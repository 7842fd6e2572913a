import ConformCore
import ConformCrypto
import ConformTestSupport
import Foundation
import Testing

@testable import ConformServer

#if canImport(Glibc)
    import Glibc
#endif

/// The forward proxy under the attacks of a hostile client, scaled down by lower limits: idle connections, request
/// lines sent a byte at a time and held tunnels never keep a normal client out, everything the attack held is given
/// back when it stops, and `--other-hosts tunnel` never leads into this machine.
@Suite(.enabled(if: Tool.has("openssl"), "needs openssl"))
struct ForwardProxyHostileTests {
    typealias Fixture = ForwardProxyServerTests.Fixture

    /// A plain proxy request on a new connection from `source`, answered by the echo handler within 5 s.
    static func plainAnswered(_ port: UInt16, from source: String = "127.0.0.1") -> Bool {
        guard let client = try? SourcedClient(port: port, from: source, receiveTimeoutSeconds: 5) else { return false }
        client.send("GET http://api.example.test/ping HTTP/1.1\r\nHost: api.example.test\r\nConnection: close\r\n\r\n")
        let answer = client.read(until: "}")
        return answer.hasPrefix("HTTP/1.1 200") && answer.contains(#""url":"http://api.example.test/ping""#)
    }

    /// 300 connections that send nothing, and 40 that send a request line a byte at a time, against 64 connection
    /// slots (57 waiting): a normal client is answered 13 times in 13, plain and through `CONNECT`, while the
    /// attackers keep connecting; the proxy then holds nothing of theirs.
    @Test func idleAndDrippingConnectionsCannotLockAClientOut() throws {
        let fixture = try Fixture(allowed: ["api.example.test", "localhost:8443"], maxConnections: 64)
        let port = fixture.proxy.boundPort
        var idle: [SourcedClient] = []
        for _ in 0..<300 { idle.append(try SourcedClient(port: port)) }
        var drippers: [SourcedClient] = []
        for _ in 0..<40 { drippers.append(try SourcedClient(port: port)) }
        let line = Array("GET http://api.example.test/slow HTTP/1.1\r\n".utf8)
        var answered = 0
        var intercepted = 0
        for round in 0..<13 {
            for dripper in drippers { dripper.send([line[round % line.count]]) }
            for _ in 0..<20 { idle.append(try SourcedClient(port: port)) }
            if Self.plainAnswered(port) { answered += 1 }
            let tunnel = try SourcedClient(port: port, receiveTimeoutSeconds: 5)
            tunnel.send("CONNECT localhost:8443 HTTP/1.1\r\nHost: localhost:8443\r\n\r\n")
            if tunnel.read(until: "\r\n\r\n") == "HTTP/1.1 200 Connection Established\r\n\r\n" { intercepted += 1 }
        }
        #expect(answered == 13)
        #expect(intercepted == 13)
        #expect(fixture.proxy.crowdedCount > 0, "room was made by closing the longest-waiting")
        #expect(fixture.proxy.waitingCount <= fixture.proxy.limits.waitingBudget)
        idle.removeAll()
        drippers.removeAll()
        #expect(Eventually.holdsBlocking { fixture.proxy.waitingCount == 0 }, "the heads the attack left were let go")
        #expect(Self.plainAnswered(port))
    }

    /// Tunnels held open from eight client addresses: each address gets its share (4 of 16) and then 503, the
    /// tunnels in all stay at the limit by cutting the one idle longest, a normal client from another address
    /// still gets its tunnel and its plain request answered, and every tunnel is gone once the attackers close.
    @Test func heldTunnelsCannotLockAClientOut() throws {
        let upstream = try HTTPServer(handler: EchoHandler(), host: "127.0.0.2")
        try upstream.start()
        defer { upstream.stop() }
        let fixture = try Fixture(otherHosts: .tunnel, tunnelPorts: [upstream.boundPort], maxConnections: 64)
        fixture.proxy.elsewhereForTests.withLock { $0 = [[127, 0, 0, 2]] }
        let limits = fixture.proxy.forwardLimits
        #expect(limits.maxTunnels == 16 && limits.tunnelsPerAddress == 4)
        let port = fixture.proxy.boundPort
        let connect = "CONNECT 127.0.0.2:\(upstream.boundPort) HTTP/1.1\r\n\r\n"
        var held: [SourcedClient] = []
        var statuses: [String: Int] = [:]
        for attacker in 0..<8 {
            for _ in 0..<6 {
                let client = try SourcedClient(port: port, from: "127.0.1.\(attacker + 1)", receiveTimeoutSeconds: 5)
                client.send(connect)
                let status = String(client.read(until: "\r\n").prefix(12))
                statuses[status, default: 0] += 1
                held.append(client)
            }
        }
        #expect(statuses["HTTP/1.1 200"] == 32, "\(statuses)")
        #expect(statuses["HTTP/1.1 503"] == 16, "two of six refused at each address: \(statuses)")
        #expect(Eventually.holdsBlocking { fixture.proxy.tunnelCount <= limits.maxTunnels })
        #expect(fixture.proxy.cutTunnelCount >= 16)
        let normal = try SourcedClient(port: port, from: "127.0.2.1", receiveTimeoutSeconds: 5)
        normal.send(connect)
        #expect(normal.read(until: "\r\n\r\n") == "HTTP/1.1 200 Connection Established\r\n\r\n")
        normal.send("GET /through HTTP/1.1\r\nHost: 127.0.0.2\r\nConnection: close\r\n\r\n")
        let answer = String(decoding: normal.readAll(), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 200") && answer.contains(#""url":"/through""#), "\(answer)")
        #expect(Self.plainAnswered(port, from: "127.0.1.1"))
        held.removeAll()
        #expect(Eventually.holdsBlocking { fixture.proxy.tunnelCount == 0 }, "every tunnel ended with its client")
    }

    /// `CONNECT` into this machine is refused in every spelling of its addresses, the proxy's own port included, and
    /// so is a port `--other-hosts` does not name; nothing is tunnelled.
    @Test func tunnelsNeverLeadIntoThisMachine() throws {
        let fixture = try Fixture(allowed: ["api.example.test"], otherHosts: .tunnel, tunnelPorts: [443, 8443, 9000])
        let own = fixture.proxy.boundPort
        var targets = [
            "127.0.0.1:443", "0:443", "2130706433:443", "127.1:443", "0x7f.1:443", "[::1]:443",
            "[::ffff:127.0.0.1]:443",
            "[::]:443", "169.254.169.254:443", "[fe80::1]:443", "localhost:9000", "localhost.:9000", "0.0.0.0:9000",
        ]
        // An address of one of this machine's interfaces, when it has one beyond loopback.
        if let interface = ForwardAddress.ofThisMachine().first(where: { $0.count == 4 && $0[0] != 127 }) {
            targets.append(interface.map(String.init).joined(separator: ".") + ":443")
        }
        for target in targets {
            let client = try RawClient(port: own, receiveTimeoutSeconds: 5)
            client.send("CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n\r\n")
            let answer = String(decoding: client.readAll(), as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 403 "), "\(target): \(answer)")
            #expect(answer.contains("the proxy tunnels only to other machines"), "\(target): \(answer)")
        }
        let loopback = try RawClient(port: own, receiveTimeoutSeconds: 5)
        loopback.send("CONNECT 2130706433:443 HTTP/1.1\r\n\r\n")
        #expect(
            String(decoding: loopback.readAll(), as: UTF8.self).contains(
                "CONNECT to 2130706433:443 is not allowed: 2130706433 is 127.0.0.1, a loopback address; the proxy "
                    + "tunnels only to other machines (to open and record it, add --allow-host 127.0.0.1:443)"))
        let client = try RawClient(port: own, receiveTimeoutSeconds: 5)
        client.send("CONNECT localhost:\(own) HTTP/1.1\r\n\r\n")
        let answer = String(decoding: client.readAll(), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 403 "), "the proxy itself: \(answer)")
        #expect(answer.contains("other hosts are tunnelled to port 443,8443,9000 only"), "\(answer)")
        #expect(fixture.proxy.counters.passed.load(ordering: .relaxed) == 0)
    }

    /// An allowed host reached by its address, or by its name with a trailing dot, is that host: intercepted, and
    /// each request reaches the handler with the allowed host's origin (and so is recorded as it), never tunnelled.
    @Test func anAllowedHostByItsAddressIsTheAllowedHost() async throws {
        let fixture = try Fixture(allowed: ["localhost:8443"], otherHosts: .tunnel, tunnelPorts: [8443])
        let proxy = "127.0.0.1:\(fixture.proxy.boundPort)"
        for (connect, name) in [("2130706433:8443", "127.0.0.1"), ("localhost.:8443", "localhost")] {
            let raw = try RawClient(port: fixture.proxy.boundPort, receiveTimeoutSeconds: 5)
            raw.send("CONNECT \(connect) HTTP/1.1\r\n\r\n")
            #expect(raw.read(until: "\r\n\r\n") == "HTTP/1.1 200 Connection Established\r\n\r\n", "\(connect)")
            let outcome = try await ChildProcess.output(
                "/bin/sh",
                [
                    "-c",
                    "printf 'GET /by-address HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n' | openssl s_client "
                        + "-quiet -proxy \(proxy) -connect \(name == "localhost" ? "localhost" : "127.0.0.1"):8443 "
                        + "-verify_return_error -CAfile \(fixture.caFile) 2>&1",
                ])
            #expect(outcome.output.contains(#""url":"https://localhost:8443/by-address""#), "\(outcome.output)")
        }
        #expect(fixture.proxy.counters.passed.load(ordering: .relaxed) == 0)
        #expect(fixture.proxy.counters.intercepted.load(ordering: .relaxed) >= 4)
    }

    /// A client that shuts down its side with its request line unfinished is closed at once, not at the head
    /// timeout (its hang-up would otherwise keep waking the loop).
    @Test func aHalfClosedUnfinishedHeadIsClosedAtOnce() throws {
        let fixture = try Fixture(allowed: ["api.example.test"])
        let client = try SourcedClient(port: fixture.proxy.boundPort, receiveTimeoutSeconds: 20)
        client.send("GET http://api.exa")
        _ = Glibc.shutdown(client.fd, Int32(SHUT_WR))
        #expect(client.readAll().isEmpty)
        #expect(fixture.proxy.slowHeadCount == 0, "closed for its hang-up, not by the 2 s head timeout")
        #expect(Self.plainAnswered(fixture.proxy.boundPort))
    }

    /// A connection handed to the plain server with its head unfinished, and one handed to the intercepting server
    /// that never sends a ClientHello, are watched there like a listener's: each is shut down at the 2 s head
    /// timeout and counted by the server's watch.
    @Test func connectionsHandedOverAreWatched() throws {
        let fixture = try Fixture(allowed: ["api.example.test", "localhost:8443"])
        let plain = try SourcedClient(port: fixture.proxy.boundPort, receiveTimeoutSeconds: 20)
        plain.send("GET http://api.example.test/ HTTP/1.1\r\nHost: api.exa")
        let tunnel = try SourcedClient(port: fixture.proxy.boundPort, receiveTimeoutSeconds: 20)
        tunnel.send("CONNECT localhost:8443 HTTP/1.1\r\n\r\n")
        #expect(tunnel.read(until: "\r\n\r\n") == "HTTP/1.1 200 Connection Established\r\n\r\n")
        #expect(plain.readAll().isEmpty && tunnel.readAll().isEmpty, "both closed without an answer")
        #expect(Eventually.holdsBlocking { fixture.proxy.serverDisconnects.slowHeads == 2 })
        #expect(fixture.proxy.waitingCount == 0 && fixture.proxy.failedHandOverCount == 0)
    }

    @Test func otherHostsReadsItsPorts() {
        #expect(ForwardPolicy.otherHosts("tunnel")?.1 == [443])
        #expect(ForwardPolicy.otherHosts("tunnel:8443,443")?.1 == [8443, 443])
        #expect(ForwardPolicy.otherHosts("refuse")?.0 == .refuse)
        for bad in ["tunnel:", "tunnel:0", "tunnel:70000", "tunnel:443,", "tunnel:+443", "tunnels", "tunnel:４４３"] {
            #expect(ForwardPolicy.otherHosts(bad) == nil, "\(bad)")
        }
        let policy = ForwardPolicy(allowed: [], otherHosts: .tunnel, tunnelPorts: [8443, 443, 443])
        #expect(policy.tunnelPorts == [443, 8443] && policy.otherHostsText == "tunnel:443,8443")
        #expect(ForwardAuthority("LocalHost.:8443") == ForwardAuthority(host: "localhost", port: 8443))
        #expect(ForwardAuthority("localhost..:8443") == nil)
        let mapped = ForwardAddress(bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 127, 0, 0, 1], port: 443)
        #expect(mapped.special == "a loopback address" && mapped.unmapped == [127, 0, 0, 1])
        #expect(ForwardResolver.numeric("2130706433", port: 1)?.first?.text == "127.0.0.1")
        #expect(ForwardResolver.numeric("0", port: 1)?.first?.special == "an unspecified address")
        #expect(ForwardResolver.numeric("::1", port: 1)?.first?.special == "a loopback address")
        #expect(ForwardResolver.numeric("::", port: 1)?.first?.special == "an unspecified address")
        #expect(ForwardResolver.numeric("fe80::1", port: 1)?.first?.special == "a link-local address")
        #expect(ForwardResolver.numeric("::ffff:169.254.1.1", port: 1)?.first?.special == "a link-local address")
        #expect(ForwardResolver.numeric("93.184.216.34", port: 1)?.first?.special == nil)
        #expect(ForwardResolver.numeric("2001:db8::1", port: 1)?.first?.special == nil)
        #expect(ForwardResolver.numeric("api.example.test", port: 1) == nil)
    }
}

/// A blocking TCP client to 127.0.0.1 from a chosen loopback source address, so a test can be many clients.
final class SourcedClient {
    let fd: Int32

    init(port: UInt16, from source: String = "127.0.0.1", receiveTimeoutSeconds: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if bound != 0 || connected != 0 {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(fd) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    func readAll() -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return result }
            result.append(contentsOf: buffer[0..<count])
        }
    }

    func read(until marker: String) -> String {
        var result: [UInt8] = []
        var byte: UInt8 = 0
        // A byte at a time, so nothing after the marker is taken from a tunnel.
        while recv(fd, &byte, 1, 0) == 1 {
            result.append(byte)
            if String(decoding: result, as: UTF8.self).hasSuffix(marker) { break }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
