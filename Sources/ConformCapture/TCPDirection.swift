/// One direction of a TCP stream put back in order: segments arrive in capture order, bytes leave in stream order
/// exactly once; duplicates and retransmissions are dropped (and counted), bytes that never came are counted as
/// lost where the stream had to go on without them.
struct TCPDirection {
    /// Bytes now in order, with the capture time of the segment that brought them; `afterGap` when bytes before
    /// them never came.
    struct Delivery {
        var bytes: ArraySlice<UInt8>
        var time: Double
        var afterGap: Bool
    }

    /// The SYN's sequence number; `nil` until it is seen.
    var initialSequence: UInt32?
    /// The stream offset of the next byte to deliver (0 is the first byte after the SYN).
    private(set) var next: UInt64 = 0
    /// Segments ahead of ``next``, by stream offset.
    private var pending: [UInt64: (bytes: [UInt8], time: Double)] = [:]
    private(set) var pendingBytes = 0
    /// Where the FIN sits, once seen.
    private(set) var finOffset: UInt64?
    /// The highest offset the peer acknowledged (everything before it reached the peer).
    private(set) var acknowledged: UInt64 = 0
    private(set) var duplicateSegments = 0
    private(set) var duplicateBytes = 0
    private(set) var reorderedSegments = 0
    private(set) var lostBytes: UInt64 = 0
    /// Where the first loss was, to report.
    private(set) var firstLossAt: UInt64?
    /// Whether bytes were delivered after a gap; a parser must not read across one.
    private(set) var hasGap = false

    /// Whether every byte up to the FIN was delivered.
    var isFinished: Bool { finOffset.map { next >= $0 } ?? false }

    /// The stream offset of sequence number `sequence`, taken as the one nearest ``next`` (wrap-around safe).
    func offset(of sequence: UInt32) -> UInt64? {
        guard let initialSequence else { return nil }
        let expected = initialSequence &+ 1 &+ UInt32(truncatingIfNeeded: next)
        let delta = Int64(Int32(bitPattern: sequence &- expected))
        let value = Int64(next) + delta
        return value < 0 ? 0 : UInt64(value)
    }

    /// Takes the peer's acknowledgment number for this direction.
    mutating func acknowledge(_ ack: UInt32) {
        guard let offset = offset(of: ack) else { return }
        // The FIN takes one sequence number: an acknowledgment past it does not mean more data.
        let data = finOffset.map { min(offset, $0) } ?? offset
        acknowledged = max(acknowledged, data)
    }

    /// Takes one segment; `deliver` gets the bytes that are now in order, with the capture time of the segment that
    /// brought them. Returns `false` when the segment cannot be placed (no SYN seen).
    mutating func accept(
        sequence: UInt32, payload: [UInt8], fin: Bool, time: Double, limit: Int,
        deliver: inout [Delivery]
    ) -> Bool {
        guard let start = offset(of: sequence) else { return false }
        if fin { finOffset = start + UInt64(payload.count) }
        guard !payload.isEmpty else { return true }
        let end = start + UInt64(payload.count)
        if end <= next {
            duplicateSegments += 1
            duplicateBytes += payload.count
            return true
        }
        if start > next {
            if let held = pending[start], held.bytes.count >= payload.count {
                duplicateSegments += 1
                duplicateBytes += payload.count
                return true
            }
            reorderedSegments += 1
            pendingBytes += payload.count - (pending[start]?.bytes.count ?? 0)
            pending[start] = (payload, time)
            if pendingBytes > limit { skipGap(deliver: &deliver) }
            return true
        }
        if start < next { duplicateBytes += Int(next - start) }
        let fresh = payload[Int(next - start)...]
        next = end
        deliver.append(Delivery(bytes: fresh, time: time, afterGap: false))
        drain(deliver: &deliver)
        return true
    }

    /// Delivers held segments that are now in order.
    private mutating func drain(deliver: inout [Delivery]) {
        while !pending.isEmpty {
            guard let start = pending.keys.filter({ $0 <= next }).min() else { return }
            let held = pending.removeValue(forKey: start)!
            pendingBytes -= held.bytes.count
            let end = start + UInt64(held.bytes.count)
            if end <= next {
                duplicateSegments += 1
                duplicateBytes += held.bytes.count
                continue
            }
            let fresh = held.bytes[Int(next - start)...]
            next = end
            deliver.append(Delivery(bytes: fresh, time: held.time, afterGap: false))
        }
    }

    /// Gives up on the bytes before the first held segment: counts them lost and delivers what follows, flagged.
    mutating func skipGap(deliver: inout [Delivery]) {
        guard let first = pending.keys.min() else { return }
        guard first > next else { return drain(deliver: &deliver) }
        lostBytes += first - next
        if firstLossAt == nil { firstLossAt = next }
        hasGap = true
        let held = pending.removeValue(forKey: first)!
        pendingBytes -= held.bytes.count
        next = first + UInt64(held.bytes.count)
        deliver.append(Delivery(bytes: held.bytes[...], time: held.time, afterGap: true))
        drain(deliver: &deliver)
    }

    /// At the end of the stream: whatever is still held lies past a gap, and bytes the peer acknowledged or the
    /// FIN announced that never came are lost. Returns the lost byte count found now.
    mutating func close(deliver: inout [Delivery]) -> UInt64 {
        let before = lostBytes
        while !pending.isEmpty { skipGap(deliver: &deliver) }
        let end = max(finOffset ?? 0, acknowledged)
        if end > next {
            lostBytes += end - next
            if firstLossAt == nil { firstLossAt = next }
            hasGap = true
            next = end
        }
        return lostBytes - before
    }
}
