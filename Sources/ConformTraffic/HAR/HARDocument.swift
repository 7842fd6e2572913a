import ConformCore
import ConformDiagnostics
import Foundation

/// A HAR read entry by entry, so a trace of a million entries never becomes one tree in memory: what ``Trace``
/// reads a HAR with.
///
/// Opening it scans the text once: it finds each entry of `log.entries` by its bytes, checks every entry (an entry
/// that cannot be read, or would change what goes on the wire, is skipped and named in ``skipped``, before anything
/// is written or judged), and keeps only where each entry is, when it started, and Conform's app events. Exchanges
/// are then built one at a time, in file order or in start order. What the HAR does not hold is marked in
/// ``RecordedExchange/omitted`` rather than read as empty: a body the tool left out (or attached where the
/// attachments cannot be found), and the response of a request that failed (status 0 or -1, `_error`,
/// `_failureText`). What the scan does not handle (a byte-order mark, escapes or repeats in
/// the keys around `entries`, malformed text) is read the plain way, with the same errors.
public struct HARDocument: Sendable {
    public let file: String
    let data: Data
    let attachments: HAR.Attachments?
    /// The protocol whose paths and ids name an entry's upstream and flow when the entry does not.
    let profile: ProtocolProfile
    let entries: Entries
    /// When each entry started, by index.
    let startTimes: [Date]
    /// Conform's app events (`log._conformEvents`), in `seq` order (ties keep file order).
    public let events: [AppEvent]
    /// The credentials the redaction of the recording it was exported from replaced (`log._conformCredentials`).
    public let credentials: [RedactedCredential]
    /// Indices of the entries that lack something (a body left out, a failed request): they cannot be judged.
    public let incomplete: [Int]
    /// Indices of the entries that read, in file order: every trace of the document holds these only.
    public let readable: [Int]
    /// Why entries were skipped (the first ``maxKeptSkips``); ``skippedCount`` counts them all.
    public let skipped: [HARError]
    public let skippedCount: Int
    /// Most skipped entries kept in ``skipped``.
    public static let maxKeptSkips = 100
    /// Attached bodies that were not read (a link, a path out of the HAR's directory), one per body, in file order:
    /// their entries are read without them and are among ``incomplete``.
    public let refusals: [HARError]

    enum Entries: Sendable {
        /// Byte ranges of each entry in `data`.
        case ranges([Range<Int>])
        /// A document read whole (the fallback).
        case parsed([JSONValue])

        var count: Int {
            switch self {
            case .ranges(let ranges): ranges.count
            case .parsed(let values): values.count
            }
        }
    }

    /// How many entries the HAR has.
    public var count: Int { entries.count }

    /// Scans `data`; an entry Conform did not write gets its upstream and flow from `profile`
    /// (``ProtocolProfile/upstream(forPath:)``, ``ProtocolProfile/flows``).
    public init(
        _ data: Data, file: String = "<har>", attachments: HAR.Attachments? = nil, profile: ProtocolProfile = .none
    ) throws(HARError) {
        self.file = file
        self.data = data
        self.attachments = attachments
        self.profile = profile
        let eventsValue: JSONValue?
        if let layout = HARLayout.scan(data) {
            entries = .ranges(layout.entries)
            eventsValue = try layout.events.map { range throws(HARError) in try Self.parse(data, range, file: file) }
            credentials = RedactedCredential.list(
                try layout.credentials.map { range throws(HARError) in try Self.parse(data, range, file: file) })
            for range in layout.others { _ = try Self.parse(data, range, file: file) }
        } else {
            let (values, events, named) = try HAR.entryValues(data, file: file)
            entries = .parsed(values)
            eventsValue = events
            credentials = RedactedCredential.list(named)
        }
        events = try HAR.appEvents(eventsValue, file: file)
        var startTimes: [Date] = []
        var incomplete: [Int] = []
        var readable: [Int] = []
        var skipped: [HARError] = []
        var skippedCount = 0
        var refusals: [HARError] = []
        let total = entries.count
        startTimes.reserveCapacity(total)
        readable.reserveCapacity(total)
        for i in 0..<total {
            do {
                let exchange = try Self.exchange(
                    entries, i, data: data, file: file, attachments: attachments, profile: profile,
                    refusals: &refusals)
                startTimes.append(exchange.startedAt)
                readable.append(i)
                if !exchange.omitted.isEmpty { incomplete.append(i) }
            } catch {
                // One bad entry does not make the rest unreadable: it is named, and left out of every trace.
                var problem = error
                problem.message += "; this entry is skipped"
                skippedCount += 1
                if skipped.count < Self.maxKeptSkips { skipped.append(problem) }
                startTimes.append(.distantPast)
            }
        }
        self.startTimes = startTimes
        self.incomplete = incomplete
        self.readable = readable
        self.skipped = skipped
        self.skippedCount = skippedCount
        self.refusals = refusals
    }

    /// The exchange of entry `index` (0-based, file order).
    public func exchange(_ index: Int) throws(HARError) -> RecordedExchange {
        var refusals: [HARError] = []
        return try Self.exchange(
            entries, index, data: data, file: file, attachments: attachments, profile: profile, refusals: &refusals)
    }

    /// Entry indices by start time (stable): the causal order of a HAR whose tool listed entries otherwise.
    public var startOrder: [Int] {
        readable.sorted { a, b in startTimes[a] != startTimes[b] ? startTimes[a] < startTimes[b] : a < b }
    }

    /// The trace, built one exchange at a time: with app events, entries in file order and each event before the
    /// entry that follows it in Conform's numbering; without, entries in `order` (file order when `nil`).
    public func records(order: [Int]? = nil) -> HARRecords {
        HARRecords(document: self, order: events.isEmpty ? (order ?? readable) : readable)
    }

    private static func exchange(
        _ entries: Entries, _ index: Int, data: Data, file: String, attachments: HAR.Attachments?,
        profile: ProtocolProfile, refusals: inout [HARError]
    ) throws(HARError) -> RecordedExchange {
        let value: JSONValue
        switch entries {
        case .ranges(let ranges): value = try parse(data, ranges[index], file: file)
        case .parsed(let values): value = values[index]
        }
        return try HAR.importEntry(
            value, index: index, file: file, attachments: attachments, profile: profile, refusals: &refusals)
    }

    /// Parses one value of the document; an error names its line and column in the whole file.
    private static func parse(_ data: Data, _ range: Range<Int>, file: String) throws(HARError) -> JSONValue {
        let start = data.startIndex + range.lowerBound
        do {
            return try JSONValue.parse(
                data[start..<(data.startIndex + range.upperBound)], maxDepth: 500,
                maxValues: HAR.maxValues(forBytes: range.count))
        } catch {
            let mark = SourceMark(offset: range.lowerBound + error.offset, in: data)
            throw HARError(
                file: file, path: nil, line: mark.line, column: mark.column, message: "not JSON: \(error.message)",
                help: "a HAR file is one JSON object with a `log` member; export it again from the tool")
        }
    }
}

/// A HAR's records, built as they are read.
public struct HARRecords: AsyncSequence, Sendable {
    public typealias Element = TraceRecord
    let document: HARDocument
    let order: [Int]

    public func makeAsyncIterator() -> Iterator { Iterator(document: document, order: order) }

    /// Every record, in memory.
    public func all() throws(HARError) -> [TraceRecord] {
        var iterator = makeAsyncIterator()
        var out: [TraceRecord] = []
        while let record = try iterator.nextRecord() { out.append(record) }
        return out
    }

    /// Events due before each entry go first; the rest follow the last entry.
    public struct Iterator: AsyncIteratorProtocol {
        let document: HARDocument
        let order: [Int]
        var position = 0
        var event = 0
        var pending: RecordedExchange?

        public mutating func next() async throws -> TraceRecord? { try nextRecord() }

        /// The next record, read synchronously.
        public mutating func nextRecord() throws(HARError) -> TraceRecord? {
            let events = document.events
            guard position < order.count else {
                guard event < events.count else { return nil }
                event += 1
                return .event(events[event - 1])
            }
            let exchange: RecordedExchange
            if let pending {
                exchange = pending
            } else {
                exchange = try document.exchange(order[position])
            }
            if event < events.count, events[event].seq <= exchange.seq {
                pending = exchange
                event += 1
                return .event(events[event - 1])
            }
            pending = nil
            position += 1
            return .exchange(exchange)
        }
    }
}
