import ConformCore
import ConformTraffic
import ConformTransports
import Foundation
import Synchronization

/// The exchange log of a bundle's run: every exchange the runner sent, written redacted (as recordings are) to a
/// recording whose `flow` is the sending step's ``ExchangeTag/key``; exchanges without a response are kept as
/// failures for `bundle.json`. Wrap the run's transport with ``transport(around:)``.
public final class BundleLog: Sendable {
    public let writer: RecordingWriter
    /// The run's seed, which salts the digests of ``BundlePseudonyms``.
    public let seed: String
    private let state = Mutex(State())

    private struct State {
        var failures: [BundleInfo.Failure] = []
        var problems: [String] = []
        /// Digests of the values the run sent, and the pseudonym each of those values got in a response.
        var sent: Set<String> = []
        var pseudonyms: [String: String] = [:]
    }

    /// Opens the log in `directory` (a new recording).
    public init(directory: String, redaction: RedactionPolicy, seed: String) throws(RecordingError) {
        writer = try RecordingWriter(directory: directory, redaction: redaction)
        self.seed = seed
    }

    /// Makes the log's redactor know `values` as credentials before any exchange is written, so one a body carries
    /// (a push's `sender`) is replaced even in an exchange written before the first that sends it in a header.
    public func learn(credentials values: [String]) {
        for value in values { writer.redactor?.learn(credential: value) }
    }

    /// `inner`, with every exchange of a tagged step written to the log.
    public func transport(around inner: any Transport) -> any Transport {
        RecordingTransport(inner: inner) { [self] exchange in record(exchange) }
    }

    func record(_ exchange: TransportExchange) {
        guard let tag = ExchangeTag.current else { return }
        switch exchange.outcome {
        case .success(let response):
            let sent = BundlePseudonyms.sentValues(exchange.request).map { BundlePseudonyms.digest($0, seed: seed) }
            state.withLock { state in
                if state.sent.count < BundlePseudonyms.maxValues { state.sent.formUnion(sent) }
            }
            do {
                let written = try writer.append(
                    upstream: "target", request: exchange.request, response: response,
                    startedAt: exchange.startedAt, durationMs: exchange.durationMs, flow: tag.key)
                let pairs = BundlePseudonyms.redactedLeaves(clear: response.body, redacted: written.response.body)
                state.withLock { state in
                    for (value, pseudonym) in pairs where state.pseudonyms.count < BundlePseudonyms.maxValues {
                        let digest = BundlePseudonyms.digest(value, seed: seed)
                        if state.sent.contains(digest) { state.pseudonyms[digest] = pseudonym }
                    }
                }
            } catch {
                state.withLock { $0.problems.append("\(tag): \(error)") }
            }
        case .failure(let error):
            let failure =
                (error as? TransportError).map {
                    BundleInfo.Failure(
                        tag: tag.key, kind: $0.kind.rawValue,
                        message: writer.redactor?.redact(text: $0.message) ?? $0.message)
                } ?? BundleInfo.Failure(tag: tag.key, kind: TransportError.Kind.other.rawValue, message: "\(error)")
            state.withLock { $0.failures.append(failure) }
        }
    }

    /// The exchanges that had no response, in tag order.
    public var failures: [BundleInfo.Failure] { state.withLock { $0.failures }.sorted { $0.tag < $1.tag } }

    /// For each value the run sent that a response's redaction replaced: its digest and its pseudonym.
    public var pseudonyms: [String: String] { state.withLock { $0.pseudonyms } }

    /// Exchanges that could not be written (a full disk): a bundle with any is incomplete.
    public var problems: [String] { state.withLock { $0.problems } }

    /// Flushes and closes the log.
    public func close() {
        writer.sync()
        writer.close()
    }
}

/// A transport that answers each request of a run from a bundle's exchange log: the exchange the log holds for the
/// sending step (``ExchangeTag/current``), or the failure the bundle records for it. A request whose method or
/// path differs from the logged one, or a step the log holds nothing for, is a transport error: the log does not
/// belong to this plan, and the step cannot be judged as the run judged it.
public struct ExchangeLogTransport: Transport {
    let exchanges: [String: RecordedExchange]
    let failures: [String: BundleInfo.Failure]
    let seed: String
    /// Digest of a value the run sent → its pseudonym (``BundlePseudonyms``), and the pseudonyms whose values
    /// this verification has sent, with those values.
    let pseudonyms: [String: String]
    let restored = Restored()
    /// For each step (its tag at attempt 1), the last attempt the run made, answered or not.
    let lastAttempts: [String: Int]

    final class Restored: Sendable {
        let values = Mutex<[String: String]>([:])
    }

    /// Reads the log in `directory` (a recording) and the failures of `info`.
    public init(directory: String, info: BundleInfo) throws(BundleProblem) {
        var exchanges: [String: RecordedExchange] = [:]
        let file = (directory as NSString).appendingPathComponent(RecordingLayout.exchangesFile)
        let name = CertificationBundle.logDirectory + "/" + RecordingLayout.exchangesFile
        do {
            let reader = try RecordingReader(path: file)
            while let exchange = try reader.next() {
                guard ExchangeTag(key: exchange.flow) != nil else {
                    throw BundleProblem(
                        file: "\(name)#\(exchange.seq)", "the exchange names no step ('\(exchange.flow)')",
                        help: "a bundle's log is written by 'conform run --bundle DIR'")
                }
                guard exchanges.updateValue(exchange, forKey: exchange.flow) == nil else {
                    throw BundleProblem(
                        file: "\(name)#\(exchange.seq)", "a second exchange for \(exchange.flow)",
                        help: "a bundle's log holds one exchange per step and attempt")
                }
            }
            if let skipped = reader.skipped.first { throw BundleProblem(file: name, "\(skipped)", help: skipped.help) }
        } catch let error as BundleProblem {
            throw error
        } catch {
            throw BundleProblem(file: name, "cannot be read: \(error)", help: "the bundle's log is damaged")
        }
        self.exchanges = exchanges
        self.failures = Dictionary(info.failures.map { ($0.tag, $0) }, uniquingKeysWith: { a, _ in a })
        self.seed = info.seed
        self.pseudonyms = info.pseudonyms
        var last: [String: Int] = [:]
        for key in Array(exchanges.keys) + info.failures.map(\.tag) {
            guard var tag = ExchangeTag(key: key) else { continue }
            let attempt = tag.attempt
            tag.attempt = 1
            last[tag.key] = max(last[tag.key] ?? 0, attempt)
        }
        lastAttempts = last
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let tag = ExchangeTag.current else {
            throw TransportError(.other, "a request outside any step cannot be answered from the log")
        }
        if let failure = failures[tag.key] {
            throw TransportError(TransportError.Kind(rawValue: failure.kind), failure.message)
        }
        // An `eventually` step the run stopped retrying when its window ended may be asked more often here, where
        // answers come at once: the implementation's last answer stands for the attempts the run had no time for.
        guard let logged = exchanges[tag.key] ?? lastAttempt(of: tag) else {
            throw TransportError(.other, "the bundle's log holds no exchange for \(tag)")
        }
        guard logged.request.method == request.method, Self.path(of: logged.request.url) == Self.path(of: request.url)
        else {
            throw TransportError(
                .other,
                "the log's exchange for \(tag) is \(logged.request.method.rawValue) \(Self.path(of: logged.request.url)), the step sends \(request.method.rawValue) \(Self.path(of: request.url))"
            )
        }
        // The values this run sends are its own: where the log hides one behind a pseudonym, it is put back.
        let known = restored.values.withLock { known in
            for value in BundlePseudonyms.sentValues(request) where known.count < BundlePseudonyms.maxValues {
                if let pseudonym = pseudonyms[BundlePseudonyms.digest(value, seed: seed)] { known[pseudonym] = value }
            }
            return known
        }
        return BundlePseudonyms.restoring(logged.response, known)
    }

    /// The logged exchange of the last attempt of `tag`'s step before `tag`'s attempt, when the log holds that
    /// step's attempts but not this one; `nil` when it holds none or the step's last attempt had no response.
    func lastAttempt(of tag: ExchangeTag) -> RecordedExchange? {
        var last = tag
        last.attempt = lastAttempts[ExchangeTag(suite: tag.suite, flow: tag.flow, step: tag.step, attempt: 1).key] ?? 0
        guard last.attempt >= 1, last.attempt < tag.attempt else { return nil }
        return exchanges[last.key]
    }

    /// The path of a URL, without its origin and query.
    static func path(of url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.range(of: "://") {
            rest = rest[scheme.upperBound...]
            rest = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        return String(rest.prefix { $0 != "?" && $0 != "#" })
    }
}
