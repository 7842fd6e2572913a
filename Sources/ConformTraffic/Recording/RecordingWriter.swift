import ConformCore
import Foundation
import Synchronization

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Appends exchanges to a recording, one `write(2)` per line with `O_APPEND`, redacting first; safe from many tasks.
public final class RecordingWriter: Sendable {
    /// The recording directory.
    public let directory: String
    /// The redactor applied before anything reaches the disk, or `nil` when redaction is off.
    public let redactor: Redactor?
    /// The longest line written; a longer exchange is written bounded (see ``RecordedExchange/boundedJSONLine(limit:)``).
    public let maxLineBytes: Int
    /// A torn last line found when appending (a recorder killed mid-write), removed so new lines do not join it.
    public let droppedTail: RecordingError?
    /// How the protocol names the device of an exchange written without its flow.
    public let flows: ProtocolProfile.FlowKeys
    let file: String
    let state: Mutex<State>
    private let metaFile: String
    /// What `meta.json` says, and how many of the redactor's credentials it names; `nil` when the file was there
    /// already and could not be read (an append never rewrites what it cannot read).
    private let meta: Mutex<(written: RecordingMeta, count: Int)?>
    /// ``meta``'s count, read on every exchange written without taking its lock.
    private let metaCount = Atomic<Int>(0)

    struct State {
        var fd: Int32
        var nextSeq: Int
        /// The scan that finds where an appended recording's numbering goes on, until its number is taken.
        var numbering: NumberingScan?
        /// Where the file last ended on a whole line, when a failed write could not be cut back to it at once.
        var repairTo: off_t?
        /// Lines that could not be written.
        var lost = 0

        /// ``nextSeq`` once the numbering of what the file held is known (waiting for its scan the first time).
        mutating func numbered() -> Int {
            if let scan = numbering {
                nextSeq = max(nextSeq, scan.next())
                numbering = nil
            }
            return nextSeq
        }
    }

    /// How bytes reach the file: `write(2)`, or a stand-in that fails as a full disk would (tests).
    let output: @Sendable (Int32, UnsafeRawPointer, Int) -> Int

    /// Creates `directory` (and `meta.json`, naming the origin of each of `upstreams`, ``RecordingMeta/upstreams``)
    /// and opens `exchanges.jsonl`; refuses a non-empty recording unless `append`. An exchange written without its
    /// flow gets the one `profile` says (``ProtocolProfile/flows``).
    public convenience init(
        directory: String, profile: ProtocolProfile = .none, redaction: RedactionPolicy = .default,
        append: Bool = false, now: Date = Date(), maxLineBytes: Int = RecordingLayout.maxLineBytes,
        upstreams: [String: String] = [:]
    ) throws(RecordingError) {
        try self.init(
            directory: directory, profile: profile, redaction: redaction, append: append, now: now,
            maxLineBytes: maxLineBytes, upstreams: upstreams, output: POSIX.writeBytes)
    }

    init(
        directory: String, profile: ProtocolProfile = .none, redaction: RedactionPolicy, append: Bool, now: Date,
        maxLineBytes: Int, upstreams: [String: String] = [:],
        output: @escaping @Sendable (Int32, UnsafeRawPointer, Int) -> Int
    ) throws(RecordingError) {
        self.output = output
        self.flows = profile.flows
        self.directory = directory
        self.maxLineBytes = maxLineBytes
        var droppedTail: RecordingError?
        self.file = (directory as NSString).appendingPathComponent(RecordingLayout.exchangesFile)
        self.redactor = redaction.enabled ? Redactor(policy: redaction) : nil
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw RecordingError(
                file: directory, message: "cannot create the recording directory",
                help: "check the path and permissions")
        }
        let metaFile = (directory as NSString).appendingPathComponent(RecordingLayout.metaFile)
        self.metaFile = metaFile
        // Never write through a link: a link named exchanges.jsonl or meta.json would send client-controlled lines
        // into whatever file it names.
        for path in [file, metaFile] where POSIX.isSymbolicLink(path) {
            throw RecordingError(
                file: path, message: "is a symbolic link; a recording's files are never written through links",
                help: "remove the link, or record into a new directory")
        }
        var numbering: NumberingScan?
        if let attributes = try? FileManager.default.attributesOfItem(atPath: file),
            (attributes[.size] as? NSNumber)?.intValue ?? 0 > 0
        {
            guard append else {
                throw RecordingError(
                    file: file, message: "the recording already has exchanges",
                    help: "choose a new output directory, delete this one, or append to it explicitly")
            }
            // Only the end of the file is read now; the numbering's scan runs beside the listener, and the first line
            // written waits for it.
            droppedTail = try Self.endCleanly(file, maxLineBytes: maxLineBytes)
            numbering = NumberingScan(file: file, maxLineBytes: maxLineBytes)
        }
        self.droppedTail = droppedTail
        var meta = RecordingMeta(
            createdAt: now, redacted: redactor != nil,
            pseudonymScheme: redactor != nil ? Redactor.scheme : "none",
            redactionRules: redaction.enabled ? redaction.summary : [],
            upstreams: upstreams.filter { RecordingMeta.isOrigin($0.value) })
        let metaFD = open(metaFile, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        var known: RecordingMeta? = meta
        var addedUpstreams = false
        if metaFD < 0, errno == EEXIST {
            // Appending: the credentials this session redacts are added to those the file names, and so are the
            // origins of upstreams it does not name yet (an upstream it names keeps the origin its exchanges had).
            known = try? RecordingMeta.load(directory: directory)
            if var found = known {
                for (name, origin) in meta.upstreams where found.upstreams[name] == nil {
                    found.upstreams[name] = origin
                    addedUpstreams = true
                }
                meta = found
                known = found
            }
        }
        self.meta = Mutex(known.map { ($0, 0) })
        if metaFD >= 0 {
            let text = Array(meta.jsonText().utf8)
            let written = text.withUnsafeBytes { output(metaFD, $0.baseAddress!, $0.count) }
            POSIX.closeFile(metaFD)
            guard written == text.count else {
                unlink(metaFile)
                throw RecordingError(file: metaFile, message: "cannot write", help: "check free disk space")
            }
        } else if errno != EEXIST {
            throw RecordingError(
                file: metaFile, message: "cannot create (\(String(cString: strerror(errno))))",
                help: "check the path and permissions")
        }
        let fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
            throw RecordingError(
                file: file, message: "cannot open for appending (\(reason))", help: "check the path and permissions")
        }
        state = Mutex(State(fd: fd, nextSeq: 1, numbering: numbering))
        if addedUpstreams { try replaceMeta(with: meta.jsonText()) }
    }

    deinit {
        state.withLock { state in
            if state.fd >= 0 { POSIX.closeFile(state.fd) }
        }
    }

    /// Redacts and appends one exchange, numbering it and deriving its flow unless given; returns what was written.
    @discardableResult
    public func append(
        upstream: String, request: HTTPRequest, response: HTTPResponse, startedAt: Date, durationMs: Double,
        flow: String? = nil, resynchronised: Bool = false
    ) throws(RecordingError) -> RecordedExchange {
        let flow = flow ?? flows.recordedFlow(request: request, response: response)
        var read = RecordedExchange(
            seq: 0, flow: flow, upstream: upstream, startedAt: startedAt, durationMs: durationMs, request: request,
            response: response)
        read.resynchronised = resynchronised
        var exchange = ContentDecoding.decoded(read, limit: maxLineBytes)
        if let redactor { exchange = redactor.redact(exchange) }
        try nameNewCredentials()
        // The line is made outside the lock under the number the exchange will most likely get, so exchanges
        // written from many tasks are serialised only for the write itself.
        let expected = state.withLock { $0.numbered() }
        exchange.seq = expected
        var line = exchange.boundedJSONLineBytes(limit: maxLineBytes)
        return try state.withLock { (state) throws(RecordingError) -> RecordedExchange in
            if state.numbered() != expected {
                exchange.seq = state.nextSeq
                if !Self.renumber(&line, from: expected, to: exchange.seq) {
                    line = exchange.boundedJSONLineBytes(limit: maxLineBytes)
                }
            }
            try write(line, into: &state)
            state.nextSeq += 1
            return exchange
        }
    }

    /// `line` (which begins with its number, `{"seq":N`) under number `to` instead of `from`, when both have as
    /// many digits, so the line keeps its length and whatever its bounding left out; `nil` otherwise.
    static func renumbered(_ line: String, from: Int, to: Int) -> String? {
        var bytes = Array(line.utf8)
        return renumber(&bytes, from: from, to: to) ? String(decoding: bytes, as: UTF8.self) : nil
    }

    /// ``renumbered(_:from:to:)`` in place on the line's bytes; `false` (and `line` unchanged) when it cannot be.
    static func renumber(_ line: inout [UInt8], from: Int, to: Int) -> Bool {
        let old = Array("{\"seq\":\(from)".utf8)
        let new = Array("{\"seq\":\(to)".utf8)
        guard old.count == new.count, line.starts(with: old) else { return false }
        line.replaceSubrange(0..<new.count, with: new)
        return true
    }

    /// Redacts and appends an exchange that already has a number (an import); later appends continue after it.
    @discardableResult
    public func write(_ exchange: RecordedExchange) throws(RecordingError) -> RecordedExchange {
        let decoded = ContentDecoding.decoded(exchange, limit: maxLineBytes)
        let written = redactor.map { $0.redact(decoded) } ?? decoded
        try nameNewCredentials()
        try state.withLock { (state) throws(RecordingError) in
            _ = state.numbered()
            try write(written.boundedJSONLineBytes(limit: maxLineBytes), into: &state)
            state.nextSeq = max(state.nextSeq, written.seq + 1)
        }
        return written
    }

    /// Appends an app event between the exchanges, numbered in the same sequence; every text it carries (its
    /// externalUserId and pushRegId) is redacted as free text is (credentials, emails, phones, JWTs, user patterns),
    /// so it matches the exchanges' bodies and no secret posted as an event reaches the disk.
    @discardableResult
    public func append(event: AppEvent) throws(RecordingError) -> AppEvent {
        var event = event
        if let redactor {
            event.externalUserId = event.externalUserId.map { redactor.redact(text: $0) }
            event.pushRegId = event.pushRegId.map { redactor.redact(text: $0) }
        }
        return try state.withLock { (state) throws(RecordingError) -> AppEvent in
            if event.seq <= 0 { event.seq = state.numbered() } else { _ = state.numbered() }
            try write(Array(event.jsonLine().utf8), into: &state)
            state.nextSeq = max(state.nextSeq, event.seq + 1)
            return event
        }
    }

    /// Adds credentials a trace's own metadata names (an import of a redacted recording or of a HAR Conform
    /// exported) to those `meta.json` names.
    public func adopt(credentials: [RedactedCredential]) throws(RecordingError) {
        try rewriteMeta(adding: credentials)
    }

    /// Rewrites `meta.json` when the redactor has met a credential it does not name yet: before the exchange that
    /// carries it is written, so a recorder killed at any point leaves metadata naming every pseudonym it holds.
    private func nameNewCredentials() throws(RecordingError) {
        guard let redactor, redactor.redactedCredentialCount != metaCount.load(ordering: .acquiring) else { return }
        try rewriteMeta(adding: [])
    }

    private func rewriteMeta(adding more: [RedactedCredential]) throws(RecordingError) {
        try meta.withLock { (meta) throws(RecordingError) in
            let met = redactor?.redactedCredentials ?? []
            guard var current = meta else {
                metaCount.store(met.count, ordering: .releasing)
                return
            }
            let credentials = current.written.credentials.merging(more).merging(met)
            if credentials != current.written.credentials {
                current.written.credentials = credentials
                // Not counted as named until written: the next exchange tries again.
                try replaceMeta(with: current.written.jsonText())
            }
            current.count = met.count
            meta = current
            metaCount.store(met.count, ordering: .releasing)
        }
    }

    /// Writes `text` to a new file beside `meta.json` and renames it over it: a reader sees the old or the new
    /// metadata whole, and a link named `meta.json` is replaced, never written through.
    private func replaceMeta(with text: String) throws(RecordingError) {
        let temporary = metaFile + ".\(getpid()).tmp"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw RecordingError(
                file: metaFile, message: "cannot rewrite (\(String(cString: strerror(errno))))",
                help: "check the path and permissions")
        }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { output(fd, $0.baseAddress!, $0.count) }
        POSIX.closeFile(fd)
        guard written == bytes.count, rename(temporary, metaFile) == 0 else {
            unlink(temporary)
            throw RecordingError(
                file: metaFile, message: "cannot rewrite; this exchange is not recorded", help: "check free disk space")
        }
    }

    /// Flushes the file to stable storage.
    public func sync() {
        state.withLock { state in _ = fsync(state.fd) }
    }

    /// Closes the file; later appends fail.
    public func close() {
        state.withLock { state in
            if state.fd >= 0 {
                _ = fsync(state.fd)
                POSIX.closeFile(state.fd)
                state.fd = -1
            }
        }
    }

    /// Exchanges and events that could not be written (a full disk, an I/O error); each was reported by its append.
    public var lostCount: Int { state.withLock { $0.lost } }
}
