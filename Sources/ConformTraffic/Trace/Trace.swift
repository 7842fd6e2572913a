import ConformCore
import ConformDiagnostics
import Foundation
import Synchronization

/// Any trace on disk, opened by its content whatever its name: a recording (a directory or `exchanges.jsonl`) or
/// a HAR (plain, `.har.gz`, mitmproxy's `.zhar`, Playwright's `.zip`). The one way a command reads traffic.
///
/// Opening reads nothing of a recording and scans a HAR once (``HARDocument``); ``records(order:onWarning:)``
/// then streams the trace's exchanges and app events in order, one record at a time, so a trace of millions of
/// exchanges is never held whole. What the reading skipped (a line or entry that is not a record, a torn last
/// line, an attached body refused) is handed to `onWarning` as it is met, with its `file:line:col`, and counted in
/// the sequence's ``TraceTally`` with what was incomplete.
public struct Trace: Sendable {
    /// The trace as the user named it: what warnings and results call it.
    public let name: String
    let source: Source

    enum Source: Sendable {
        /// A recording: the path of the directory or `.jsonl` file to open.
        case recording(String)
        case har(HARDocument)
    }

    /// The order of a trace's records.
    public enum Order: Sendable {
        /// As the trace lists them: what is replayed, imported and exported.
        case file
        /// By start time (stable) when the trace carries no app events: the causal order of a HAR whose tool
        /// listed entries otherwise, which the flow check judges. A recording is written in start order already.
        case start
    }

    /// Opens the trace at `path` (resolved), named `name` (as the user wrote it) in warnings and results; a HAR's
    /// entries that Conform did not write get their upstream and flow from `profile`.
    ///
    /// Throws ``TraceFile/Failure`` when the path is neither a recording nor a HAR, and ``HARError`` when a HAR
    /// is not one as a whole; a recording that cannot be opened fails when its records are first read.
    public static func open(_ path: String, name: String? = nil, profile: ProtocolProfile = .none) throws -> Trace {
        let name = name ?? path
        switch try TraceFile.open(path) {
        case .recording(let file): return Trace(name: name, source: .recording(file))
        case .har(let data, let attachments):
            return Trace(
                name: name, source: .har(try HARDocument(data, file: name, attachments: attachments, profile: profile)))
        }
    }

    /// The exchanges and app events, streamed in `order`; every warning goes to `onWarning` as it is met.
    public func records(order: Order = .file, onWarning: (@Sendable (TraceWarning) -> Void)? = nil) -> TraceRecords {
        TraceRecords(trace: self, order: order, onWarning: onWarning)
    }

    /// The exchanges alone (what `replay` and `diff` send), streamed in file order.
    public func exchanges(onWarning: (@Sendable (TraceWarning) -> Void)? = nil) -> TraceExchanges {
        TraceExchanges(records: records(onWarning: onWarning))
    }
}

/// Something a trace's reading met besides its records.
public struct TraceWarning: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// A line or entry that is not a record: skipped, and the rest read; what it held is neither sent nor
        /// judged.
        case unreadable
        /// Unreadable records beyond those named one by one (a HAR names its first ``HARDocument/maxKeptSkips``).
        case moreUnreadable(Int)
        /// The torn last line a killed recorder leaves: reported, and no record lost from what was written whole.
        case tornTail
        /// An attached body that was not read (a link, a path out of the trace's directory): its exchange is read
        /// without it and cannot be judged.
        case refusedAttachment
    }

    public var kind: Kind
    /// The warning as the command line writes it: `file:line:col: warning: …` and its `help:`.
    public var text: String

    public var description: String { text }
}

/// What reading a trace found, filled in as its records are read (shared by every iteration of one sequence).
public final class TraceTally: Sendable {
    /// An exchange that lacks something, named for the person reading the result.
    public struct Incomplete: Sendable, Hashable {
        public var seq: Int
        public var method: HTTPMethod
        public var target: String
        /// What it lacks, `; `-separated (``RecordedExchange/omitted``).
        public var omitted: String
    }

    /// Most incomplete exchanges named in ``incompleteExchanges``; ``incomplete`` counts them all.
    public static let maxNamedIncomplete = 1000

    private struct Counts {
        var exchanges = 0
        var events = 0
        var incomplete = 0
        var named: [Incomplete] = []
        var unreadable = 0
        var refusedAttachments = 0
        var tornTail = false
    }

    private let counts = Mutex(Counts())

    /// Exchanges read.
    public var exchanges: Int { counts.withLock { $0.exchanges } }
    /// App events read.
    public var events: Int { counts.withLock { $0.events } }
    /// Exchanges that lack something (a body a tool left out, a request that failed): they cannot be judged.
    public var incomplete: Int { counts.withLock { $0.incomplete } }
    /// The first ``maxNamedIncomplete`` of the ``incomplete`` exchanges, in the order read.
    public var incompleteExchanges: [Incomplete] { counts.withLock { $0.named } }
    /// Lines or entries skipped as no record: never sent, never judged.
    public var unreadable: Int { counts.withLock { $0.unreadable } }
    /// Attached bodies refused (their exchanges are among ``incomplete``).
    public var refusedAttachments: Int { counts.withLock { $0.refusedAttachments } }
    /// Whether the recording ended with a torn line.
    public var tornTail: Bool { counts.withLock { $0.tornTail } }

    func note(_ record: TraceRecord) {
        counts.withLock { counts in
            switch record {
            case .exchange(let exchange):
                counts.exchanges += 1
                // Refused by the server for a body nobody could decode: no exchange of the flow (the check notes it).
                guard !exchange.omitted.isEmpty, !exchange.isRefusedUndecodableRequest else { return }
                counts.incomplete += 1
                if counts.named.count < Self.maxNamedIncomplete {
                    counts.named.append(
                        Incomplete(
                            seq: exchange.seq, method: exchange.request.method, target: exchange.request.target,
                            omitted: exchange.omitted.joined(separator: "; ")))
                }
            case .event: counts.events += 1
            }
        }
    }

    func note(_ warning: TraceWarning) {
        counts.withLock { counts in
            switch warning.kind {
            case .unreadable: counts.unreadable += 1
            case .moreUnreadable(let more): counts.unreadable += more
            case .tornTail: counts.tornTail = true
            case .refusedAttachment: counts.refusedAttachments += 1
            }
        }
    }
}

/// A trace's exchanges and app events, read as they are iterated.
public struct TraceRecords: AsyncSequence, Sendable {
    public typealias Element = TraceRecord
    public let trace: Trace
    let order: Trace.Order
    let onWarning: (@Sendable (TraceWarning) -> Void)?
    /// What the iteration found so far: counts of records, of what was skipped and of what was incomplete.
    public let tally = TraceTally()

    public func makeAsyncIterator() -> Iterator { Iterator(records: self) }

    /// Every record, in memory: for small traces and tests only, since a recording may hold millions.
    public func all() async throws -> [TraceRecord] {
        var out: [TraceRecord] = []
        for try await record in self { out.append(record) }
        return out
    }

    public struct Iterator: AsyncIteratorProtocol {
        let records: TraceRecords
        var recording: RecordingReader?
        var har: HARRecords.Iterator?
        var started = false
        var done = false

        init(records: TraceRecords) { self.records = records }

        public mutating func next() async throws -> TraceRecord? {
            try nextRecord()
        }

        /// The next record, read synchronously.
        public mutating func nextRecord() throws -> TraceRecord? {
            if done { return nil }
            if !started {
                started = true
                try start()
            }
            let record: TraceRecord?
            if let reader = recording {
                record = try reader.nextRecord()
                if record == nil, let torn = reader.truncatedTail {
                    warn(TraceWarning(kind: .tornTail, text: torn.warning))
                }
            } else {
                record = try har?.nextRecord()
            }
            guard let record else {
                done = true
                return nil
            }
            records.tally.note(record)
            return record
        }

        private mutating func start() throws {
            switch records.trace.source {
            case .recording(let path):
                let reader = try RecordingReader(path: path)
                let records = self.records
                reader.onSkipped = { problem in
                    records.tally.note(TraceWarning(kind: .unreadable, text: problem.warning))
                    records.onWarning?(TraceWarning(kind: .unreadable, text: problem.warning))
                }
                recording = reader
            case .har(let document):
                // A HAR is checked whole when opened: what it skipped is known before its first record.
                for refusal in document.refusals { warn(TraceWarning(kind: .refusedAttachment, text: refusal.warning)) }
                for problem in document.skipped { warn(TraceWarning(kind: .unreadable, text: problem.warning)) }
                let more = document.skippedCount - document.skipped.count
                if more > 0 {
                    warn(
                        TraceWarning(
                            kind: .moreUnreadable(more), text: "\(document.file): warning: \(more) more entries skipped"
                        ))
                }
                let order = records.order == .start ? document.startOrder : nil
                har = document.records(order: order).makeAsyncIterator()
            }
        }

        private func warn(_ warning: TraceWarning) {
            records.tally.note(warning)
            records.onWarning?(warning)
        }
    }
}

/// A trace's exchanges without its app events, read as they are iterated.
public struct TraceExchanges: AsyncSequence, Sendable {
    public typealias Element = RecordedExchange
    /// The records filtered, with their tally.
    public let records: TraceRecords

    public var tally: TraceTally { records.tally }

    public func makeAsyncIterator() -> Iterator { Iterator(records: records.makeAsyncIterator()) }

    /// Every exchange, in memory: for small traces only.
    public func all() async throws -> [RecordedExchange] {
        var out: [RecordedExchange] = []
        for try await exchange in self { out.append(exchange) }
        return out
    }

    public struct Iterator: AsyncIteratorProtocol {
        var records: TraceRecords.Iterator

        public mutating func next() async throws -> RecordedExchange? {
            while let record = try records.nextRecord() {
                if case .exchange(let exchange) = record { return exchange }
            }
            return nil
        }
    }
}
