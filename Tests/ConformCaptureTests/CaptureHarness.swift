import ConformCapture
import ConformCore
import ConformMobileMessaging
import ConformTestSupport
import ConformTraffic
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whether this process may capture packets live (root or CAP_NET_RAW): tested by opening `lo`.
let canCaptureLive: Bool = {
    guard Tool.has("tcpdump") else { return false }
    return (try? PacketSource(interface: "lo", filter: "tcp port 9")) != nil
}()

/// Scapy for Python 3.
let hasScapy: Bool = {
    let process = SpawnedProcess()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", "import scapy.all"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard let exit = try? ProcessExit(starting: process) else { return false }
    return exit.wait() && process.terminationStatus == 0
}()

/// Debian's tcpdump writing what `lo` carries for a filter into a file, started and stopped by the test (at the
/// latest when the value goes away).
final class TCPDump {
    deinit { stop() }

    let process = SpawnedProcess()
    let file: String
    let log: URL

    /// Starts tcpdump and returns once it listens (at most 10 s).
    init(filter: String, file: String, scratch: Scratch) throws {
        self.file = file
        log = scratch.url.appendingPathComponent("tcpdump-\(UUID().uuidString).log")
        try Data().write(to: log)
        let handle = try FileHandle(forWritingTo: log)
        process.executableURL = URL(fileURLWithPath: Tool.path("tcpdump")!)
        // --immediate-mode: each packet handed over as it comes (not a ring block later); -U: each written as it
        // comes; -s 0: whole packets; -Z root: keep writing into the test's directory.
        process.arguments = ["-i", "lo", "--immediate-mode", "-U", "-s", "0", "-n", "-Z", "root", "-w", file, filter]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = handle
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if let text = try? String(contentsOf: log, encoding: .utf8), text.contains("listening on") { return }
            usleep(20_000)
        }
        kill(process.processIdentifier, SIGKILL)
        throw CaptureTestError("tcpdump did not start listening within 10 s")
    }

    /// Waits briefly for the last packets to be written, then stops tcpdump (at most 10 s). A child of the test
    /// process inherits its blocked signals (SIGINT and SIGTERM among them), so it is killed: with `-U` every packet
    /// is already in the file.
    func stop() {
        guard process.isRunning else { return }
        // Until the file has not grown for half a second (at most 10 s): a loaded machine may hand tcpdump the last
        // packets late.
        var last = -1
        var quiet = 0
        let settle = Date().addingTimeInterval(10)
        while quiet < 5, Date() < settle {
            usleep(100_000)
            let size = ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber)?.intValue ?? 0
            quiet = size == last ? quiet + 1 : 0
            last = size
        }
        kill(process.processIdentifier, SIGKILL)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { usleep(20_000) }
    }
}

struct CaptureTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Every exchange of a recording.
func exchanges(in directory: String) throws -> [RecordedExchange] {
    let reader = try RecordingReader(path: directory)
    var out: [RecordedExchange] = []
    while let e = try reader.next() { out.append(e) }
    return out
}

/// An exchange without what only the clock decides.
func untimed(_ e: RecordedExchange) -> RecordedExchange {
    var e = e
    e.startedAt = Date(timeIntervalSince1970: 0)
    e.durationMs = 0
    return e
}

/// Each exchange as its recording line without its timings: what a reader diffs.
func lines(_ exchanges: [RecordedExchange]) -> [String] {
    exchanges.map { untimed($0).boundedJSONLine(limit: RecordingLayout.maxLineBytes) }
}

/// Where two lists of lines first differ, for a failure message.
func difference(_ a: [String], _ b: [String]) -> String {
    guard a.count == b.count else { return "\(a.count) lines against \(b.count)" }
    for (i, (x, y)) in zip(a, b).enumerated() where x != y {
        let common = zip(x, y).prefix { $0 == $1 }.count
        return "line \(i + 1) differs at \(common): \(x.dropFirst(max(0, common - 40)).prefix(120)) | "
            + "\(y.dropFirst(max(0, common - 40)).prefix(120))"
    }
    return "same"
}

/// Imports the capture `file` of Mobile Messaging traffic into a new recording under `scratch` and returns its
/// exchanges and the summary.
func importCapture(
    _ file: String, scratch: Scratch, name: String = "imported", options: CaptureOptions = CaptureOptions(),
    redaction: RedactionPolicy = RedactionPolicy(profile: .mobileMessaging)
) throws -> (exchanges: [RecordedExchange], summary: CaptureSummary) {
    let out = scratch.path(name)
    var options = options
    options.profile = .mobileMessaging
    let writer = try RecordingWriter(directory: out, profile: .mobileMessaging, redaction: redaction)
    let summary = try CaptureImport.run(source: try PacketSource(file: file), options: options, writer: writer)
    writer.close()
    return (try exchanges(in: out), summary)
}

/// Runs a shell script to its end (bounded by `timeout` seconds) and returns what it printed.
func shell(_ script: String, timeout: Int = 60) async throws -> ChildProcess.Outcome {
    // KILL: a child inherits the test process's blocked signals, TERM among them.
    try await ChildProcess.output("/usr/bin/timeout", ["-s", "KILL", String(timeout), "/bin/sh", "-c", script])
}

/// Sends `bytes` on one connection to 127.0.0.1:`port` and reads until `expectedResponses` status lines came, the
/// server closes, or 10 s pass.
func rawExchange(port: UInt16, _ bytes: [UInt8], expectedResponses: Int) -> String {
    guard let client = try? RawClient(port: port) else { return "" }
    client.send(bytes)
    var reply: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
        let text = String(decoding: reply, as: UTF8.self)
        if text.components(separatedBy: "HTTP/1.1 ").count - 1 >= expectedResponses, text.hasSuffix("}") { break }
        let count = recv(client.fd, &buffer, buffer.count, 0)
        if count <= 0 { break }
        reply.append(contentsOf: buffer[0..<count])
    }
    return String(decoding: reply, as: UTF8.self)
}
