internal import CPcap
import ConformDiagnostics
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why a capture cannot be opened or read on.
public struct CaptureError: Error, DiagnosticConvertible, Sendable, Hashable, CustomStringConvertible {
    public var file: String?
    public var message: String
    public var help: String

    public init(file: String? = nil, message: String, help: String) {
        self.file = file
        self.message = message
        self.help = help
    }

    /// The problem as a `trace.invalid` diagnostic about the capture as a whole.
    public var diagnostic: Diagnostic { Diagnostic(.traceInvalid, file: file, message: message, help: help) }
    public var description: String { diagnostic.rendered(sourceLine: nil) }
}

/// Packets from libpcap: a pcap or pcapng file, bytes in memory, or a live interface; one reader at a time.
public final class PacketSource {
    /// The link-layer header type of every packet (`DLT_*` as libpcap numbers it).
    public let linkType: Int32
    /// What is read: the file, `<memory>` or the interface.
    public let name: String
    private var handle: OpaquePointer?
    /// The bytes a memory source reads, kept alive as long as libpcap's stream on them.
    private let memory: UnsafeMutableRawBufferPointer?
    /// A live capture's descriptor and how long ``next(_:)`` waits on it: libpcap's own timeout does not fire on
    /// Linux while no packet comes (TPACKET_V3), so the wait is a `poll(2)` of ours and reads do not block.
    private var live: (fd: Int32, timeoutMs: Int32)?
    /// Whether packets come from an interface rather than a file or bytes.
    public private(set) var isLive = false

    private init(handle: OpaquePointer, name: String, memory: UnsafeMutableRawBufferPointer? = nil) {
        self.handle = handle
        self.name = name
        self.memory = memory
        self.linkType = pcap_datalink(handle)
    }

    deinit {
        if let handle { pcap_close(handle) }
        memory?.deallocate()
    }

    /// Opens a pcap or pcapng file, with an optional BPF filter (`tcp port 8080`).
    public convenience init(file path: String, filter: String? = nil) throws(CaptureError) {
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard
            let handle = pcap_open_offline_with_tstamp_precision(path, UInt32(PCAP_TSTAMP_PRECISION_MICRO), &errbuf)
        else {
            throw CaptureError(
                file: path, message: "not a capture libpcap can read (\(String(cString: errbuf)))",
                help: "pass a pcap or pcapng file, e.g. written by `tcpdump -w FILE`")
        }
        self.init(handle: handle, name: path)
        try apply(filter: filter)
    }

    /// Reads a capture held in memory (tests and the fuzz target).
    public convenience init(bytes: [UInt8], filter: String? = nil) throws(CaptureError) {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 8)
        memory.copyBytes(from: bytes)
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let handle = conform_pcap_open_memory(memory.baseAddress, bytes.count, &errbuf) else {
            memory.deallocate()
            throw CaptureError(
                file: "<memory>", message: "not a capture (\(String(cString: errbuf)))",
                help: "pass pcap or pcapng bytes")
        }
        self.init(handle: handle, name: "<memory>", memory: memory)
        try apply(filter: filter)
    }

    /// Captures live from `interface` (needs `CAP_NET_RAW`); `timeoutMs` bounds how long ``next(_:)`` waits for
    /// the kernel's buffer before it returns with no packet, so a caller can check its own deadline.
    public convenience init(
        interface: String, filter: String?, snapshotLength: Int32 = 262_144, bufferBytes: Int32 = 32 << 20,
        timeoutMs: Int32 = 200
    ) throws(CaptureError) {
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let handle = pcap_create(interface, &errbuf) else {
            throw CaptureError(
                message: "cannot capture on \(interface): \(String(cString: errbuf))", help: "check the interface name")
        }
        pcap_set_snaplen(handle, snapshotLength)
        pcap_set_timeout(handle, timeoutMs)
        pcap_set_buffer_size(handle, bufferBytes)
        pcap_set_tstamp_precision(handle, Int32(PCAP_TSTAMP_PRECISION_MICRO))
        let status = pcap_activate(handle)
        if status < 0 {
            let reason = String(cString: pcap_geterr(handle))
            pcap_close(handle)
            if status == PCAP_ERROR_PERM_DENIED {
                throw CaptureError(
                    message: "no permission to capture on \(interface) (\(reason))",
                    help: "live capture needs CAP_NET_RAW: run as root, or `setcap cap_net_raw,cap_net_admin=eip` "
                        + "on conform, or capture with tcpdump and `conform import` the file")
            }
            if status == PCAP_ERROR_NO_SUCH_DEVICE {
                throw CaptureError(
                    message: "no interface \(interface) (\(reason))", help: "list interfaces with `ip link`")
            }
            throw CaptureError(message: "cannot capture on \(interface): \(reason)", help: "check the interface")
        }
        self.init(handle: handle, name: interface)
        isLive = true
        try apply(filter: filter)
        var errors = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        let fd = pcap_get_selectable_fd(handle)
        if fd >= 0, pcap_setnonblock(handle, 1, &errors) == 0 { live = (fd, timeoutMs) }
    }

    private func apply(filter: String?) throws(CaptureError) {
        guard let filter, !filter.isEmpty, let handle else { return }
        var program = bpf_program()
        guard pcap_compile(handle, &program, filter, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
            throw CaptureError(
                file: name,
                message: "the filter '\(filter)' does not compile (\(String(cString: pcap_geterr(handle))))",
                help: "write a BPF filter as tcpdump takes it, e.g. 'tcp port 8080'")
        }
        defer { pcap_freecode(&program) }
        guard pcap_setfilter(handle, &program) == 0 else {
            throw CaptureError(
                file: name, message: "cannot apply the filter (\(String(cString: pcap_geterr(handle))))",
                help: "check the filter")
        }
    }

    /// What one call of ``next(_:)`` found.
    public enum Step: Sendable, Hashable {
        case packet
        /// A live capture's timeout passed with nothing to read.
        case idle
        case end
    }

    /// Reads the next packet and hands its capture time (seconds since 1970) and captured bytes to `body`; the
    /// bytes are valid only inside `body`. A file cut off inside a packet ends with a thrown error.
    public func next(_ body: (Double, UnsafeRawBufferPointer) -> Void) throws(CaptureError) -> Step {
        guard let handle else { return .end }
        if let live {
            var poller = pollfd(fd: live.fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, live.timeoutMs)
            if ready == 0 || (ready < 0 && errno == EINTR) { return .idle }
        }
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        let status = pcap_next_ex(handle, &header, &data)
        switch status {
        case 1:
            guard let header, let data else { return .idle }
            let time = Double(header.pointee.ts.tv_sec) + Double(header.pointee.ts.tv_usec) / 1_000_000
            body(time, UnsafeRawBufferPointer(start: data, count: Int(header.pointee.caplen)))
            return .packet
        case 0: return .idle
        case PCAP_ERROR_BREAK: return .end
        default:
            let reason = String(cString: pcap_geterr(handle))
            throw CaptureError(
                file: name, message: "the capture is cut off or corrupt (\(reason))",
                help: "the packets before this point were read; capture again, or repair the file with `editcap`")
        }
    }

    /// Makes a live capture's ``next(_:)`` return `.end` (from a signal handler's task, say).
    public func stop() {
        if let handle { pcap_breakloop(handle) }
    }

    /// Packets the kernel received and dropped (buffer full, interface) in a live capture; `nil` for a file.
    public var kernelStatistics: (received: UInt32, dropped: UInt32, interfaceDropped: UInt32)? {
        guard let handle else { return nil }
        var stats = pcap_stat()
        guard pcap_stats(handle, &stats) == 0 else { return nil }
        return (stats.ps_recv, stats.ps_drop, stats.ps_ifdrop)
    }
}

/// Telling captures apart by content: the magic numbers of pcap (either byte order, micro- or nanosecond) and pcapng.
public enum CaptureFormat {
    /// `true` when `head` (the first bytes of a file) starts like a pcap or pcapng file.
    public static func looksLikeCapture(_ head: some Collection<UInt8>) -> Bool {
        let magic = Array(head.prefix(4))
        guard magic.count == 4 else { return false }
        let known: [[UInt8]] = [
            [0xD4, 0xC3, 0xB2, 0xA1], [0xA1, 0xB2, 0xC3, 0xD4],  // pcap, microseconds
            [0x4D, 0x3C, 0xB2, 0xA1], [0xA1, 0xB2, 0x3C, 0x4D],  // pcap, nanoseconds
            [0x0A, 0x0D, 0x0D, 0x0A],  // pcapng section header block
        ]
        return known.contains(magic)
    }

    /// Whether the file at `path` starts like a capture.
    public static func isCapture(path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return looksLikeCapture((try? handle.read(upToCount: 4)) ?? Data())
    }
}
