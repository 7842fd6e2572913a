/// Link-layer, IPv4/IPv6 and TCP headers read from captured bytes, every length checked against what was captured.
public enum PacketDecoder {
    /// The link-layer header types read (libpcap's `DLT_*` numbers, and the `LINKTYPE_*` ones files may carry).
    public enum LinkType {
        public static let null: Int32 = 0
        public static let ethernet: Int32 = 1
        public static let raw: Int32 = 12
        public static let rawOpenBSD: Int32 = 14
        public static let rawFile: Int32 = 101
        public static let loop: Int32 = 108
        public static let linuxCooked: Int32 = 113
        public static let ipv4: Int32 = 228
        public static let ipv6: Int32 = 229
        public static let linuxCooked2: Int32 = 276

        static let all: Set<Int32> = [
            null, ethernet, raw, rawOpenBSD, rawFile, loop, linuxCooked, ipv4, ipv6, linuxCooked2,
        ]

        /// Whether packets of `type` can be read.
        public static func isSupported(_ type: Int32) -> Bool { all.contains(type) }
    }

    /// What a packet turned out to be.
    public enum Outcome: Sendable, Hashable {
        case segment(TCPSegment)
        /// Not TCP over IP (ARP, UDP, ICMP, …): not HTTP/1.1's business.
        case notTCP
        /// An IP fragment: fragments are not reassembled, so the stream it belongs to will show a gap.
        case fragment
        /// A header shorter than it says, or cut off by the capture.
        case malformed(String)
    }

    /// Decodes one captured packet of link type `linkType`.
    public static func decode(linkType: Int32, _ bytes: UnsafeRawBufferPointer) -> Outcome {
        var reader = ByteReader(bytes)
        switch linkType {
        case LinkType.ethernet:
            guard reader.count >= 14 else { return .malformed("Ethernet header cut off") }
            var offset = 12
            var type = reader.u16(offset)
            // Up to two VLAN tags (802.1Q, 802.1ad).
            var tags = 0
            while type == 0x8100 || type == 0x88A8 || type == 0x9100 {
                guard tags < 2, reader.count >= offset + 6 else { return .malformed("VLAN tags cut off") }
                offset += 4
                type = reader.u16(offset)
                tags += 1
            }
            return network(etherType: type, reader.dropping(offset + 2))
        case LinkType.null, LinkType.loop:
            guard reader.count >= 4 else { return .malformed("loopback header cut off") }
            // The address family in the capturing host's byte order (NULL) or network order (LOOP): try both.
            let big = reader.u32(0)
            let little = big.byteSwapped
            let family = min(big, little)
            switch family {
            case 2: return ipv4(reader.dropping(4))
            case 10, 24, 28, 30: return ipv6(reader.dropping(4))
            default: return .notTCP
            }
        case LinkType.raw, LinkType.rawOpenBSD, LinkType.rawFile, LinkType.ipv4, LinkType.ipv6:
            guard reader.count >= 1 else { return .malformed("empty packet") }
            switch reader.u8(0) >> 4 {
            case 4: return ipv4(reader)
            case 6: return ipv6(reader)
            default: return .notTCP
            }
        case LinkType.linuxCooked:
            guard reader.count >= 16 else { return .malformed("Linux cooked header cut off") }
            return network(etherType: reader.u16(14), reader.dropping(16))
        case LinkType.linuxCooked2:
            guard reader.count >= 20 else { return .malformed("Linux cooked v2 header cut off") }
            return network(etherType: reader.u16(0), reader.dropping(20))
        default:
            return .notTCP
        }
    }

    static func network(etherType: UInt16, _ reader: ByteReader) -> Outcome {
        switch etherType {
        case 0x0800: return ipv4(reader)
        case 0x86DD: return ipv6(reader)
        default: return .notTCP
        }
    }

    static func ipv4(_ reader: ByteReader) -> Outcome {
        guard reader.count >= 20 else { return .malformed("IPv4 header cut off") }
        guard reader.u8(0) >> 4 == 4 else { return .malformed("IPv4 header of another version") }
        let headerLength = Int(reader.u8(0) & 0x0F) * 4
        let totalLength = Int(reader.u16(2))
        guard headerLength >= 20, totalLength >= headerLength else { return .malformed("IPv4 lengths inconsistent") }
        guard reader.count >= headerLength else { return .malformed("IPv4 options cut off") }
        let fragment = reader.u16(6)
        guard reader.u8(9) == 6 else { return .notTCP }
        if fragment & 0x2000 != 0 || fragment & 0x1FFF != 0 { return .fragment }
        let source = IPAddress(high: 0, low: UInt64(reader.u32(12)), isIPv6: false)
        let destination = IPAddress(high: 0, low: UInt64(reader.u32(16)), isIPv6: false)
        // Ethernet pads short frames: the IP total length, not the frame, says where the segment ends.
        return tcp(reader.slice(headerLength, totalLength - headerLength), source: source, destination: destination)
    }

    static func ipv6(_ reader: ByteReader) -> Outcome {
        guard reader.count >= 40 else { return .malformed("IPv6 header cut off") }
        guard reader.u8(0) >> 4 == 6 else { return .malformed("IPv6 header of another version") }
        let payloadLength = Int(reader.u16(4))
        var next = reader.u8(6)
        let source = IPAddress(high: reader.u64(8), low: reader.u64(16), isIPv6: true)
        let destination = IPAddress(high: reader.u64(24), low: reader.u64(32), isIPv6: true)
        var offset = 40
        let end = 40 + payloadLength
        // Extension headers: hop-by-hop, routing, destination options, authentication; a fragment stops here.
        var hops = 0
        while next != 6 {
            switch next {
            case 0, 43, 60, 51:
                guard hops < 8, reader.count >= offset + 2, offset + 2 <= end else {
                    return .malformed("IPv6 extension headers cut off")
                }
                let length = next == 51 ? (Int(reader.u8(offset + 1)) + 2) * 4 : (Int(reader.u8(offset + 1)) + 1) * 8
                next = reader.u8(offset)
                offset += length
                hops += 1
            case 44: return .fragment
            default: return .notTCP
            }
        }
        guard offset <= end else { return .malformed("IPv6 extension headers longer than the payload") }
        return tcp(reader.slice(offset, end - offset), source: source, destination: destination)
    }

    /// `reader` holds the captured part of a TCP segment whose IP layer announced `reader.announced` bytes.
    static func tcp(_ reader: ByteReader, source: IPAddress, destination: IPAddress) -> Outcome {
        guard reader.count >= 20 else { return .malformed("TCP header cut off") }
        let dataOffset = Int(reader.u8(12) >> 4) * 4
        guard dataOffset >= 20, reader.announced >= dataOffset else { return .malformed("TCP header length invalid") }
        guard reader.count >= dataOffset else { return .malformed("TCP options cut off") }
        let payload = reader.bytes(from: dataOffset)
        return .segment(
            TCPSegment(
                source: Endpoint(address: source, port: reader.u16(0)),
                destination: Endpoint(address: destination, port: reader.u16(2)), sequence: reader.u32(4),
                acknowledgment: reader.u32(8), flags: reader.u8(13), payload: payload,
                missingBytes: reader.announced - dataOffset - payload.count))
    }
}

/// Big-endian reads from captured bytes; `count` is what was captured, `announced` what a header said there is.
struct ByteReader {
    let base: UnsafeRawBufferPointer
    let start: Int
    let count: Int
    let announced: Int

    init(_ base: UnsafeRawBufferPointer) {
        self.base = base
        self.start = 0
        self.count = base.count
        self.announced = base.count
    }

    private init(base: UnsafeRawBufferPointer, start: Int, count: Int, announced: Int) {
        self.base = base
        self.start = start
        self.count = count
        self.announced = announced
    }

    func u8(_ i: Int) -> UInt8 { base[start + i] }
    func u16(_ i: Int) -> UInt16 { UInt16(u8(i)) << 8 | UInt16(u8(i + 1)) }
    func u32(_ i: Int) -> UInt32 { UInt32(u16(i)) << 16 | UInt32(u16(i + 2)) }
    func u64(_ i: Int) -> UInt64 { UInt64(u32(i)) << 32 | UInt64(u32(i + 4)) }

    /// The bytes after `offset`, as many as were captured.
    func dropping(_ offset: Int) -> ByteReader {
        let n = max(0, count - offset)
        return ByteReader(base: base, start: start + min(offset, count), count: n, announced: n)
    }

    /// `length` bytes at `offset` as a header announced them, of which only the captured part can be read.
    func slice(_ offset: Int, _ length: Int) -> ByteReader {
        let from = min(offset, count)
        return ByteReader(base: base, start: start + from, count: max(0, min(length, count - from)), announced: length)
    }

    func bytes(from offset: Int) -> [UInt8] {
        guard offset < count else { return [] }
        return Array(base[(start + offset)..<(start + count)])
    }
}
