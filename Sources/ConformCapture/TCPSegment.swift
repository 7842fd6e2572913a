/// An IPv4 or IPv6 address, held without allocation.
public struct IPAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The address's 16 bytes big-endian (IPv4 in the low 4 of `low`).
    public var high: UInt64
    public var low: UInt64
    public var isIPv6: Bool

    public init(high: UInt64, low: UInt64, isIPv6: Bool) {
        self.high = high
        self.low = low
        self.isIPv6 = isIPv6
    }

    /// Parses dotted IPv4 or IPv6 text (`127.0.0.1`, `::1`, `[::1]`); `nil` for anything else, names included.
    public init?(_ text: String) {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if !text.contains(":") {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4 else { return nil }
            var value: UInt64 = 0
            for part in parts {
                guard part.count <= 3, let byte = UInt8(part) else { return nil }
                value = value << 8 | UInt64(byte)
            }
            self.init(high: 0, low: value, isIPv6: false)
            return
        }
        let halves = text.split(separator: "::", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        func groups(_ s: Substring) -> [UInt16]? {
            if s.isEmpty { return [] }
            var out: [UInt16] = []
            for g in s.split(separator: ":", omittingEmptySubsequences: false) {
                guard g.count <= 4, let v = UInt16(g, radix: 16) else { return nil }
                out.append(v)
            }
            return out
        }
        guard let head = groups(halves[0]) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1]), head.count + tail.count < 8 else { return nil }
            all += [UInt16](repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        let high = all[0..<4].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
        let low = all[4..<8].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
        self.init(high: high, low: low, isIPv6: true)
    }

    public var description: String {
        if !isIPv6 {
            return (0..<4).reversed().map { String((low >> (UInt64($0) * 8)) & 0xFF) }.joined(separator: ".")
        }
        let groups = (0..<8).map { i -> UInt16 in
            let word = i < 4 ? high : low
            return UInt16(truncatingIfNeeded: word >> (UInt64(3 - i % 4) * 16))
        }
        // The longest run of two or more zero groups becomes `::` (RFC 5952).
        var best = (start: -1, count: 0)
        var i = 0
        while i < 8 {
            if groups[i] == 0 {
                var j = i
                while j < 8, groups[j] == 0 { j += 1 }
                if j - i > best.count, j - i >= 2 { best = (i, j - i) }
                i = j
            } else {
                i += 1
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        if best.start < 0 { return hex.joined(separator: ":") }
        return hex[..<best.start].joined(separator: ":") + "::"
            + hex[(best.start + best.count)...].joined(separator: ":")
    }

    public static func < (a: IPAddress, b: IPAddress) -> Bool {
        (a.isIPv6 ? 1 : 0, a.high, a.low) < (b.isIPv6 ? 1 : 0, b.high, b.low)
    }
}

/// One end of a TCP connection.
public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    public var address: IPAddress
    public var port: UInt16

    public init(address: IPAddress, port: UInt16) {
        self.address = address
        self.port = port
    }

    /// `127.0.0.1:8080` or `[::1]:8080`.
    public var description: String { address.isIPv6 ? "[\(address)]:\(port)" : "\(address):\(port)" }
}

/// A TCP segment as the packet carried it: its ends, sequence numbers, flags, and the payload that was captured.
public struct TCPSegment: Sendable, Hashable {
    public var source: Endpoint
    public var destination: Endpoint
    public var sequence: UInt32
    public var acknowledgment: UInt32
    public var flags: UInt8
    public var payload: [UInt8]
    /// Payload bytes the IP header announced but the capture did not keep (a snapshot length too short).
    public var missingBytes: Int

    public static let fin: UInt8 = 0x01
    public static let syn: UInt8 = 0x02
    public static let rst: UInt8 = 0x04
    public static let ack: UInt8 = 0x10

    public init(
        source: Endpoint, destination: Endpoint, sequence: UInt32, acknowledgment: UInt32, flags: UInt8,
        payload: [UInt8], missingBytes: Int = 0
    ) {
        self.source = source
        self.destination = destination
        self.sequence = sequence
        self.acknowledgment = acknowledgment
        self.flags = flags
        self.payload = payload
        self.missingBytes = missingBytes
    }

    public func has(_ flag: UInt8) -> Bool { flags & flag != 0 }
}
