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

    /// The SYN's sequence number (for a stream the capture began inside, one before the first segment seen);
    /// `nil` until it is known.
    var initialSequence: UInt32?
    /// The stream offset of the next byte to deliver (0 is the first byte after the SYN).
    private(set) var next: UInt64 = 0
    /// Bytes ahead of ``next`` by stream offset, in pieces that never overlap: a segment that arrives over bytes
    /// already held keeps only what is new, so the first copy of every byte is the one read (as tshark does).
    private var pending = OffsetMap<(bytes: [UInt8], time: Double)>()
    private(set) var pendingBytes = 0
    /// The last bytes delivered, each at its stream offset modulo the size (allocated with the first delivery), to
    /// compare a later copy against; offsets below ``recentFrom`` are not there (a gap).
    private var recent: [UInt8] = []
    private var recentFrom: UInt64 = 0
    /// Where the FIN sits, once seen.
    private(set) var finOffset: UInt64?
    /// The highest offset the peer acknowledged (everything before it reached the peer).
    private(set) var acknowledged: UInt64 = 0
    private(set) var duplicateSegments = 0
    private(set) var duplicateBytes = 0
    private(set) var reorderedSegments = 0
    /// Segments that overlapped bytes seen before with different bytes (the first copy is kept).
    private(set) var conflictingSegments = 0
    /// Where the first such overlap was, to report.
    private(set) var firstConflictAt: UInt64?
    private(set) var lostBytes: UInt64 = 0
    /// Where the first loss was, to report.
    private(set) var firstLossAt: UInt64?
    /// Whether bytes were delivered after a gap; a parser must not read across one.
    private(set) var hasGap = false

    /// How many bytes of what was delivered last are kept to compare a retransmission against.
    static let recentBytes = 2048

    /// The work reassembly did so far: held pieces visited, found and moved. n segments cost O(n log n).
    var steps: Int { pending.steps }

    /// Whether every byte up to the FIN was delivered.
    var isFinished: Bool { finOffset.map { next >= $0 } ?? false }

    /// The stream offset of sequence number `sequence`, taken as the one nearest ``next`` (wrap-around safe).
    func offset(of sequence: UInt32) -> UInt64? {
        signedOffset(of: sequence).map { $0 < 0 ? 0 : UInt64($0) }
    }

    /// Likewise, negative for bytes before the first.
    private func signedOffset(of sequence: UInt32) -> Int64? {
        guard let initialSequence else { return nil }
        let expected = initialSequence &+ 1 &+ UInt32(truncatingIfNeeded: next)
        return Int64(next) + Int64(Int32(bitPattern: sequence &- expected))
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
    ///
    /// Bytes seen before win: the part of a segment over bytes already delivered or held is compared with them (a
    /// difference is counted in ``conflictingSegments``) and dropped; only the rest is kept.
    mutating func accept(
        sequence: UInt32, payload: [UInt8], fin: Bool, time: Double, limit: Int,
        deliver: inout [Delivery]
    ) -> Bool {
        guard let signed = signedOffset(of: sequence) else { return false }
        // Bytes before the first (a segment retransmitted from before the SYN, or from before the first segment
        // of a stream the capture began inside) have no place: only what follows them is kept.
        if signed < 0 {
            let cut = Int(min(-signed, Int64(payload.count)))
            duplicateBytes += cut
            guard cut < payload.count else {
                if !payload.isEmpty { duplicateSegments += 1 }
                return true
            }
            return accept(
                sequence: sequence &+ UInt32(cut), payload: Array(payload[cut...]), fin: fin, time: time, limit: limit,
                deliver: &deliver)
        }
        let start = UInt64(signed)
        if fin { finOffset = start + UInt64(payload.count) }
        guard !payload.isEmpty else { return true }
        let end = start + UInt64(payload.count)
        var conflict = false
        var from = start
        if start < next {
            // Already delivered: compared with the bytes still kept, then dropped.
            conflict = differsFromDelivered(payload, at: start, upTo: min(end, next))
            duplicateBytes += Int(min(end, next) - start)
            from = next
        }
        if from >= end {
            duplicateSegments += 1
            noteConflict(conflict, at: start)
            return true
        }
        // The common case: the next bytes, nothing held in their way.
        if from == next, pending.min().map({ $0.key >= end }) ?? true {
            noteConflict(conflict, at: start)
            deliverNew(payload[Int(from - start)...], at: from, time: time, afterGap: false, into: &deliver)
            drain(deliver: &deliver)
            return true
        }
        // Keep the parts no held piece covers; compare the parts one does.
        var stored = false
        var cursor = from
        if let before = pending.floor(cursor), before.key + UInt64(before.value.bytes.count) > cursor {
            let overlapEnd = min(end, before.key + UInt64(before.value.bytes.count))
            conflict = differs(payload, start, before.value.bytes, before.key, from: cursor, to: overlapEnd) || conflict
            duplicateBytes += Int(overlapEnd - cursor)
            cursor = overlapEnd
        }
        while cursor < end {
            guard let held = pending.ceiling(cursor), held.key < end else {
                hold(Array(payload[Int(cursor - start)..<Int(end - start)]), at: cursor, time: time)
                stored = true
                break
            }
            if held.key > cursor {
                hold(Array(payload[Int(cursor - start)..<Int(held.key - start)]), at: cursor, time: time)
                stored = true
            }
            let overlapEnd = min(end, held.key + UInt64(held.value.bytes.count))
            conflict = differs(payload, start, held.value.bytes, held.key, from: held.key, to: overlapEnd) || conflict
            duplicateBytes += Int(overlapEnd - held.key)
            cursor = overlapEnd
        }
        noteConflict(conflict, at: start)
        if !stored {
            duplicateSegments += 1
            return true
        }
        if from > next { reorderedSegments += 1 }
        drain(deliver: &deliver)
        if pendingBytes > limit { skipGap(deliver: &deliver) }
        return true
    }

    private mutating func hold(_ bytes: [UInt8], at offset: UInt64, time: Double) {
        pending.insert(offset, (bytes, time))
        pendingBytes += bytes.count
    }

    private mutating func noteConflict(_ conflict: Bool, at offset: UInt64) {
        guard conflict else { return }
        conflictingSegments += 1
        if firstConflictAt == nil { firstConflictAt = offset }
    }

    /// Whether `payload` (at `start`) differs from `held` (at `heldStart`) in the offsets `from..<to`.
    private func differs(
        _ payload: [UInt8], _ start: UInt64, _ held: [UInt8], _ heldStart: UInt64, from: UInt64, to: UInt64
    ) -> Bool {
        let a = payload[Int(from - start)..<Int(to - start)]
        let b = held[Int(from - heldStart)..<Int(to - heldStart)]
        return !a.elementsEqual(b)
    }

    /// Whether `payload` (at `start`) differs from the delivered bytes still kept, in the offsets below `to`.
    private func differsFromDelivered(_ payload: [UInt8], at start: UInt64, upTo to: UInt64) -> Bool {
        guard !recent.isEmpty else { return false }
        let kept = max(recentFrom, next > UInt64(recent.count) ? next - UInt64(recent.count) : 0)
        let from = max(start, kept)
        guard from < to else { return false }
        for offset in from..<to where payload[Int(offset - start)] != recent[Int(offset % UInt64(recent.count))] {
            return true
        }
        return false
    }

    /// Hands `bytes` (at stream offset ``next``) on and keeps their tail to compare later copies against.
    private mutating func deliverNew(
        _ bytes: ArraySlice<UInt8>, at offset: UInt64, time: Double, afterGap: Bool, into deliver: inout [Delivery]
    ) {
        if recent.isEmpty { recent = [UInt8](repeating: 0, count: Self.recentBytes) }
        if afterGap { recentFrom = offset }
        let size = UInt64(recent.count)
        let tail = bytes.suffix(recent.count)
        var position = offset + UInt64(bytes.count - tail.count)
        for byte in tail {
            recent[Int(position % size)] = byte
            position += 1
        }
        next = offset + UInt64(bytes.count)
        deliver.append(Delivery(bytes: bytes, time: time, afterGap: afterGap))
    }

    /// Delivers held pieces that are now in order: they never overlap and all lie at or past ``next``.
    private mutating func drain(deliver: inout [Delivery]) {
        while let first = pending.min(), first.key == next {
            pending.remove(first.key)
            pendingBytes -= first.value.bytes.count
            deliverNew(first.value.bytes[...], at: first.key, time: first.value.time, afterGap: false, into: &deliver)
        }
    }

    /// Gives up on the bytes before the first held segment: counts them lost and delivers what follows, flagged.
    mutating func skipGap(deliver: inout [Delivery]) {
        guard let first = pending.min() else { return }
        guard first.key > next else { return drain(deliver: &deliver) }
        lostBytes += first.key - next
        if firstLossAt == nil { firstLossAt = next }
        hasGap = true
        pending.remove(first.key)
        pendingBytes -= first.value.bytes.count
        deliverNew(first.value.bytes[...], at: first.key, time: first.value.time, afterGap: true, into: &deliver)
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
