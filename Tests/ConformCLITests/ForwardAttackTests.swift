import ConformProxy
import ConformTestSupport
import Foundation
import Testing

@testable import ConformCLI

#if canImport(Glibc)
    import Glibc
#endif

/// `conform record --forward` under 1,100 hostile connections re-opened as they are cut: some send nothing, some a
/// part of a request line, some a request line and then stall, some a `CONNECT` and no ClientHello. A normal client
/// is answered every time, plain and through an intercepted tunnel, and once the attack stops the process is back
/// to the threads and descriptors it had before it, and still answers.
@Suite(.enabled(if: Tool.has("curl"), "needs curl"))
struct ForwardAttackTests {
    static let attackers = 1_100

    @Test func theProxyServesThroughAnAttackAndRecoversAfter() async throws {
        // The attack's descriptors and the proxy's, whatever the shell allowed.
        ProxySession.raiseDescriptorLimit()
        let scratch = try Scratch("forwardattack")
        let environment = TLSCommandTests.environment(scratch)
        let recorder = try await offThePool {
            try ConformProcess(
                [
                    "record", "--forward", "--allow-host", "api.example.test", "--other-hosts", "tunnel", "--out",
                    scratch.path("recorded"),
                ], scratch: scratch, banner: "Recording as a forward proxy on ", environment: environment)
        }
        let proxy = recorder.baseURL
        let port = UInt16(proxy.split(separator: ":").last ?? "") ?? 0
        let pid = recorder.process.processIdentifier
        let ca = scratch.path("config/conform/ca/ca-cert.pem")
        #expect(try await Self.answered(proxy, ca: ca) == (true, true))
        let before = (threads: Self.count("/proc/\(pid)/task"), descriptors: Self.count("/proc/\(pid)/fd"))

        // Thirteen rounds of connections that wait for their head (idle, or part of a request line), then thirteen
        // of every kind; a normal client asks once a round.
        let outcome = try await offThePool {
            var attack: [Int32] = []
            var served = (plain: 0, intercepted: 0)
            var threads = 0
            for round in 0..<26 {
                Self.prune(&attack)
                var kind = round
                while attack.count < Self.attackers,
                    let socket = Self.open(port, kind: round < 13 ? kind % 2 : kind)
                {
                    attack.append(socket)
                    kind += 1
                }
                let (plain, intercepted) = Self.answeredNow(proxy, ca: ca)
                served.plain += plain ? 1 : 0
                served.intercepted += intercepted ? 1 : 0
                threads = max(threads, Self.count("/proc/\(pid)/task"))
            }
            for socket in attack { close(socket) }
            return (served: served, threads: threads)
        }
        #expect(outcome.served.plain == 26 && outcome.served.intercepted == 26, "\(outcome.served)")
        #expect(outcome.threads <= before.threads + 8, "no thread per connection: \(outcome.threads) during the attack")
        // Everything the attack held is given back: its descriptors at once, idle pool threads within seconds.
        let deadline = ContinuousClock.now + .seconds(30)
        var after = (threads: 0, descriptors: 0)
        repeat {
            after = (Self.count("/proc/\(pid)/task"), Self.count("/proc/\(pid)/fd"))
            if after.threads <= before.threads + 8 && after.descriptors <= before.descriptors + 8 { break }
            try await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < deadline
        #expect(after.threads <= before.threads + 8, "threads before \(before.threads), after \(after.threads)")
        #expect(
            after.descriptors <= before.descriptors + 8,
            "descriptors before \(before.descriptors), after \(after.descriptors)")
        #expect(try await Self.answered(proxy, ca: ca) == (true, true))
        let ended = try await offThePool { try recorder.interrupt() }
        #expect(ended.code == 0, "\(ended.err)")
        #expect(ended.out.contains("Other hosts: tunnelled through CONNECT to port 443 without decryption"))
    }

    /// One hostile connection of the given kind, non-blocking; `nil` when it could not be opened.
    static func open(_ port: UInt16, kind: Int) -> Int32? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(socket)
            return nil
        }
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        let start = [
            "",
            "GET http://api.exam",
            "GET http://elsewhere.example.test/ HTTP/1.1\r\nHost: elsew",
            "CONNECT conform.invalid:443 HTTP/1.1\r\n\r\n",
        ][kind % 4]
        if !start.isEmpty { _ = Array(start.utf8).withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) } }
        return socket
    }

    /// Closes the connections the proxy has closed (or answered), so the attack re-opens them.
    static func prune(_ attack: inout [Int32]) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        attack.removeAll { socket in
            let count = recv(socket, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return false }
            close(socket)
            return true
        }
    }

    /// Whether a plain request to another host gets the proxy's refusal, and a request through an intercepted
    /// tunnel to the events host gets its answer.
    static func answered(_ proxy: String, ca: String) async throws -> (Bool, Bool) {
        try await offThePool { answeredNow(proxy, ca: ca) }
    }

    static func answeredNow(_ proxy: String, ca: String) -> (Bool, Bool) {
        let plain = curl(["-m", "5", "--proxy", proxy, "http://elsewhere.example.test/x"])
        let tunnelled = curl([
            "-m", "5", "--proxy", proxy, "--cacert", ca, "https://conform.invalid/mobile/1/x",
        ])
        return (plain.contains("FORWARD_NOT_ALLOWED"), tunnelled.contains("answers only POST /_conform/events"))
    }

    /// What curl printed, run to its end on this thread.
    static func curl(_ arguments: [String]) -> String {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: Tool.path("curl")!)
        process.arguments = ["-sS"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        guard let exit = try? ProcessExit(starting: process) else { return "" }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        exit.wait()
        return String(decoding: data, as: UTF8.self)
    }

    static func count(_ directory: String) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: directory).count) ?? -1
    }
}
