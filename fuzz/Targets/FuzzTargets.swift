import ConformCapture
import ConformCore
import ConformReference
import ConformServer
import ConformTraffic
import ConformYAML
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The parsers that read hostile input, each as a function of arbitrary bytes: what `scripts/fuzz` drives with
/// libFuzzer, and what the corpus regression test replays. A target returns normally for every input; a trap,
/// a sanitizer report or a broken invariant (checked with `precondition`) is a finding.
public enum FuzzTargets {
    /// Every target by name.
    public static let all: [String: @Sendable (Data) -> Void] = [
        "yaml": yaml, "suite": suite, "template": template, "json": json, "har": har, "packaging": packaging,
        "recording": recording, "scan": scan, "http": http, "pcap": pcap, "reassembly": reassembly,
    ]

    /// The YAML composer over libyaml.
    public static func yaml(_ data: Data) {
        _ = try? YAML.parse([UInt8](data), file: "fuzz.yaml")
    }

    /// The suite loader: YAML, then the suite model with its diagnostics.
    public static func suite(_ data: Data) {
        _ = try? SuiteLoader().load(bytes: [UInt8](data), file: "fuzz.yaml")
    }

    /// The template parser, and rendering what it parsed in an empty scope.
    public static func template(_ data: Data) {
        guard let text = String(data: data, encoding: .utf8), let parsed = try? Template(parsing: text) else { return }
        _ = try? TemplateScope(values: [:]).renderText(parsed)
    }

    /// The JSON parser; what parses must serialize and parse back to the same value.
    public static func json(_ data: Data) {
        guard let value = try? JSONValue.parse(data) else { return }
        let again = try? JSONValue.parse(Data(value.serialized().utf8))
        precondition(again == value, "JSON does not survive a round trip")
    }

    /// HAR import, entry by entry: an attached body named `body` is found, any other is refused as a link is, so
    /// both ways through the attachment rules run; a refused body leaves its entry marked.
    public static func har(_ data: Data) {
        let attachments: HAR.Attachments = { name throws(ConfinedFile.Refusal) in
            guard name == "body" else { throw .link(name) }
            return Data("attached".utf8)
        }
        guard let document = try? HARDocument(data, file: "fuzz.har", attachments: attachments) else { return }
        precondition(document.refusals.isEmpty || !document.incomplete.isEmpty, "a refused body left no mark")
        precondition(document.readable.count + document.skippedCount == document.count, "an entry went missing")
        for index in document.readable {
            // What reads can go on the wire as it is, and only to the origin a replay gives it.
            guard let exchange = try? document.exchange(index) else {
                preconditionFailure("a readable entry does not read")
            }
            wireChecked(exchange.request)
        }
    }

    /// A request read from a trace: it breaks no wire rule and, rebased, stays on the base's origin.
    static func wireChecked(_ request: HTTPRequest) {
        precondition(HTTPSyntax.problem(in: request) == nil, "a request that breaks the wire rules was read")
        if let rebased = try? request.rebased(onto: "http://target.invalid:8080") {
            precondition(URLParts(rebased.url).origin == "http://target.invalid:8080", "a rebased URL left its origin")
        } else {
            preconditionFailure("a request that was read cannot be rebased")
        }
    }

    /// The ZIP reader and the decompressors behind `.har.gz`, `.zhar`, Playwright ZIPs and Content-Encoding.
    public static func packaging(_ data: Data) {
        let limit = 1 << 22
        if let archive = try? ZipArchive(data) {
            for entry in archive.entries.prefix(8) { _ = try? archive.contents(of: entry.name, limit: limit) }
        }
        _ = try? Decompression.inflate(data, limit: limit)
        _ = try? Decompression.inflate(data, raw: true, limit: limit)
        _ = try? Decompression.brotli(data, limit: limit)
        _ = try? Decompression.zstd(data, limit: limit)
        // Content-Encoding as every command decodes it: never past the cap, and a body that did not decode is left
        // out, not kept as it came.
        for coding in ["gzip", "deflate", "br", "zstd", "gzip, br"] {
            let decoded = ContentDecoding.decode(["Content-Encoding": coding], data, limit: limit)
            precondition(decoded.body.count <= limit, "a decoded body passed its cap")
            precondition(decoded.problem == nil || decoded.body.isEmpty, "a body that did not decode was kept")
        }
    }

    /// One recording line; what reads must write a line that reads back the same.
    public static func recording(_ data: Data) {
        guard let exchange = try? RecordedExchange(jsonLine: data) else { return }
        wireChecked(exchange.request)
        let line = exchange.boundedJSONLine(limit: RecordingLayout.maxLineBytes)
        let again = try? RecordedExchange(jsonLine: Array(line.utf8.dropLast()))
        precondition(
            again?.seq == exchange.seq && again?.request == exchange.request, "a read line does not write back")
    }

    /// A pcap or pcapng file through libpcap, the packet decoder, TCP reassembly and HTTP/1.1: every exchange
    /// reported is counted, and memory held stays under the limits.
    public static func pcap(_ data: Data) {
        guard let source = try? PacketSource(bytes: [UInt8](data)) else { return }
        var limits = CaptureLimits()
        limits.maxBufferedBytes = 1 << 20
        limits.maxOutOfOrderBytes = 4096
        let summary = captured(limits: limits) { reader in
            var packets = 0
            while packets < 10_000,
                (try? source.next({ time, bytes in reader.consume(time: time, linkType: source.linkType, bytes) }))
                    == .packet
            {
                packets += 1
            }
        }
        precondition(summary.peakBufferedBytes <= limits.maxBufferedBytes + 65_536, "buffered past the limit")
    }

    /// TCP reassembly and HTTP/1.1 of one stream from segments the bytes describe, after a SYN and SYN-ACK (overlaps,
    /// conflicting copies and gaps included; the work stays n log n): each record is a flags byte (bit 0 from the server, bit 1 FIN, bit 2 RST), a 16-bit offset from the direction's
    /// start, a length byte and that many payload bytes. Bit 7 of the first flags byte reads with `resync`, and bit 6
    /// then leaves the SYN and SYN-ACK out (a stream the capture began inside).
    public static func reassembly(_ data: Data) {
        let bytes = [UInt8](data)
        var limits = CaptureLimits()
        limits.maxOutOfOrderBytes = 512
        limits.maxMessageBytes = 4096
        limits.maxBufferedBytes = 16_384
        limits.maxResyncBytes = 2048
        let resync = (bytes.first ?? 0) & 0x80 != 0
        let beganInside = resync && (bytes.first ?? 0) & 0x40 != 0
        let client = Endpoint(address: IPAddress(high: 0, low: 0x7F00_0001, isIPv6: false), port: 40_000)
        let server = Endpoint(address: IPAddress(high: 0, low: 0x7F00_0001, isIPv6: false), port: 8080)
        var segments = 0
        let summary = captured(limits: limits, resync: resync) { reader in
            let isn: (client: UInt32, server: UInt32) = (0xFFFF_FF00, 7)
            if !beganInside {
                reader.consume(
                    TCPSegment(
                        source: client, destination: server, sequence: isn.client, acknowledgment: 0,
                        flags: TCPSegment.syn, payload: []), at: 0)
                reader.consume(
                    TCPSegment(
                        source: server, destination: client, sequence: isn.server, acknowledgment: isn.client &+ 1,
                        flags: TCPSegment.syn | TCPSegment.ack, payload: []), at: 0)
            }
            var i = 0
            var time = 0.0
            while i + 4 <= bytes.count {
                segments += 1
                let flags = bytes[i]
                let offset = UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                let length = min(Int(bytes[i + 3]), bytes.count - i - 4)
                let payload = Array(bytes[(i + 4)..<(i + 4 + length)])
                i += 4 + length
                time += 0.001
                let fromServer = flags & 1 != 0
                var tcpFlags = TCPSegment.ack
                if flags & 2 != 0 { tcpFlags |= TCPSegment.fin }
                if flags & 4 != 0 { tcpFlags |= TCPSegment.rst }
                reader.consume(
                    TCPSegment(
                        source: fromServer ? server : client, destination: fromServer ? client : server,
                        sequence: (fromServer ? isn.server : isn.client) &+ 1 &+ offset,
                        acknowledgment: (fromServer ? isn.client : isn.server) &+ 1, flags: tcpFlags,
                        payload: payload), at: time)
            }
        }
        precondition(summary.peakBufferedBytes <= limits.maxBufferedBytes + 512, "buffered past the limit")
        // Held out-of-order pieces cost O(n log n) steps whatever the order (a treap's depth stays near 2 ln n).
        let log2n = Int.bitWidth - segments.leadingZeroBitCount
        precondition(
            summary.reassemblySteps <= 64 * (segments + 1) * (log2n + 1), "reassembly work grew faster than n log n")
    }

    /// Runs `feed` against a capture reader and checks that every exchange it reported was counted.
    private static func captured(
        limits: CaptureLimits, resync: Bool = false, _ feed: (CaptureReader) -> Void
    ) -> CaptureSummary {
        var seen = 0
        let reader = CaptureReader(options: CaptureOptions(limits: limits, resync: resync)) { _ in seen += 1 }
        feed(reader)
        let summary = reader.finish()
        precondition(seen == summary.exchanges, "exchanges reported and counted differ")
        return summary
    }

    /// The secret scanner and the redactor on free text.
    public static func scan(_ data: Data) {
        let text = String(decoding: data, as: UTF8.self)
        _ = SecretScanner().scan(text: text, file: "fuzz")
        _ = Redactor(policy: .default).redact(text: text)
    }

    /// The HTTP server's request path: the bytes go to a served reference over a socket, and the server must
    /// answer or close, then keep serving; no request that breaks the server's wire rules reaches the reference.
    public static func http(_ data: Data) {
        guard let port = served.port else { return }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { preconditionFailure("the server stopped accepting connections") }
        _ = data.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        shutdown(fd, Int32(SHUT_WR))
        // Read until the server closes, or goes quiet: a second for the first bytes, then 30 ms of silence (a
        // keep-alive connection stays open after its answer).
        var buffer = [UInt8](repeating: 0, count: 65536)
        var waiting: Int32 = 1000
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, waiting) > 0, recv(fd, &buffer, buffer.count, 0) > 0 else { break }
            waiting = 30
        }
    }

    /// One reference server for the whole fuzzing run.
    private static let served: (server: HTTPServer?, port: UInt16?) = {
        guard let server = try? HTTPServer(handler: WireChecked()), (try? server.start()) != nil else {
            return (nil, nil)
        }
        return (server, server.boundPort)
    }()
}

/// The reference behind a check of what the server lets through: a token method, a target without control bytes
/// or spaces, token field names, values without control bytes but tab, and at most the field limit.
private struct WireChecked: HTTPHandler {
    let reference = ReferenceImplementation()

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let isToken = { (text: String) in
            !text.isEmpty
                && text.utf8.allSatisfy {
                    $0 < 0x80 && (isalnum(Int32($0)) != 0 || "!#$%&'*+-.^_`|~".utf8.contains($0))
                }
        }
        precondition(isToken(request.method.rawValue), "a method that is not a token reached the handler")
        precondition(
            !request.url.utf8.contains { $0 <= 0x20 || $0 == 0x7F }, "a target with a control byte reached the handler")
        precondition(
            request.headerFields.count <= HTTPServerLimits.default.maxHeaderFields,
            "more header fields than the limit reached the handler")
        for field in request.headerFields {
            precondition(isToken(field.name), "a field name that is not a token reached the handler")
            precondition(
                !field.value.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F },
                "a field value with a control byte reached the handler")
        }
        return reference.handle(request)
    }

    func refusal(status: HTTPStatus, code: String, message: String) -> HTTPResponse {
        reference.refusal(status: status, code: code, message: message)
    }
}
