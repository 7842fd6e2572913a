import ConformCore

/// How much the reference keeps, so a client that sends large bodies again and again cannot grow it without end.
///
/// The count is an estimate of what the stored values take (text bytes plus a fixed cost per value), measured
/// over the whole state only when an optimistic bound (the last measure plus every body accepted since) would pass
/// the limit; deletes and depersonalizations free their share at the next measure.
public struct StorageLimit: Sendable, Hashable {
    /// The most the reference keeps: 64 MiB by default.
    public var bytes: Int

    public static let `default` = StorageLimit(bytes: 64 << 20)

    public init(bytes: Int) { self.bytes = max(0, bytes) }

    /// The refusal of a write that would pass the limit: 507 with the standard envelope.
    static func refusal(limit: Int) -> ReferenceError {
        .service(
            507, "STORAGE_LIMIT_REACHED",
            "The reference implementation keeps at most \(limit) bytes of data; delete registrations or restart it.")
    }
}

/// What a store has counted against its ``StorageLimit``.
///
/// Measuring walks the whole state, so it is rationed: a store filled to its limit would otherwise measure on every
/// write and stall every client behind its lock (one second and more a request with a million registrations). A
/// measure runs only when the optimistic bound fails and either 1/64 of the limit has been accepted since the last
/// one (so measures are paid for by the data that prompted them) or a request that can free space (a delete, a
/// write without a body such as depersonalize) has run since, and then, when the last measure took more than a
/// millisecond, no sooner than ten times its length after it ended. Until then a write that does not fit the bound
/// is refused.
struct StorageCount: Sendable {
    /// The estimate at the last measure.
    var measured = 0
    /// Request bodies accepted since then.
    var since = 0
    /// Whether a request that can free space has run since the last measure.
    var mayHaveFreed = false
    /// The earliest a measure prompted by ``mayHaveFreed`` may run.
    var nextMeasure: ContinuousClock.Instant?
    /// How many times the state was measured.
    private(set) var measures = 0

    /// Whether a write with `body` bytes fits; measures `state` again when the optimistic bound does not and a
    /// measure is due.
    mutating func admits(_ body: Int, limit: StorageLimit, state: ReferenceState) -> Bool {
        if measured + since + body <= limit.bytes { return true }
        let clock = ContinuousClock()
        let start = clock.now
        let grown = since >= max(1, limit.bytes / 64)
        guard grown || (mayHaveFreed && nextMeasure.map { start >= $0 } ?? true) else { return false }
        measured = state.estimatedBytes
        measures += 1
        since = 0
        mayHaveFreed = false
        let end = clock.now
        nextMeasure = end - start > .milliseconds(1) ? end + (end - start) * 10 : nil
        return measured + body <= limit.bytes
    }
}

extension ReferenceState {
    /// An estimate of what the state keeps: text bytes plus a fixed cost per stored value.
    var estimatedBytes: Int {
        var total = 0
        for installation in installations.values {
            total += 256 + installation.pushRegId.utf8.count + installation.personId.utf8.count
            total += JSONValue.object(installation.fields).estimatedBytes
            total += JSONValue.object(installation.customAttributes).estimatedBytes
            for message in installation.pending {
                total += 128 + message.messageId.utf8.count + message.bulkId.utf8.count
                total += (message.title?.utf8.count ?? 0) + (message.text?.utf8.count ?? 0)
                total += (message.sound?.utf8.count ?? 0)
                total += message.customPayload.map { JSONValue.object($0).estimatedBytes } ?? 0
            }
        }
        for person in persons.values {
            total += 256 + person.id.utf8.count + (person.externalUserId?.utf8.count ?? 0)
            total += (person.phones + person.emails + person.tags + person.installations).reduce(0) {
                $0 + 16 + $1.utf8.count
            }
            total += JSONValue.object(person.attributes).estimatedBytes
            total += JSONValue.object(person.customAttributes).estimatedBytes
        }
        return total + personByExternalId.count * 64
    }
}

extension JSONValue {
    /// Text bytes plus 16 per value and per key.
    var estimatedBytes: Int {
        switch self {
        case .string(let s): 16 + s.utf8.count
        case .array(let items): items.reduce(16) { $0 + $1.estimatedBytes }
        case .object(let object): object.reduce(16) { $0 + 16 + $1.key.utf8.count + $1.value.estimatedBytes }
        default: 16
        }
    }
}
