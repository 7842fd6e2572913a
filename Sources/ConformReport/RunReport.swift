import ConformCore
import ConformDiagnostics
import Foundation

/// A run read back from the JSON report of one shard: its results, its place in the whole plan, its source.
public struct RunReport: Sendable, Hashable {
    public var result: RunResult
    public var placement: ShardPlacement
    /// Where the report was read from, for messages.
    public var source: String

    public init(result: RunResult, placement: ShardPlacement, source: String) {
        self.result = result
        self.placement = placement
        self.source = source
    }
}

/// Why a JSON report cannot be read or merged: the file and, when known, the JSON path or line and column.
public struct RunReportError: DiagnosticConvertible, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var help: String

    public init(_ message: String, help: String) {
        self.message = message
        self.help = help
    }

    /// The problem as a `report.invalid` diagnostic; the message names the file and where in it.
    public var diagnostic: Diagnostic { Diagnostic(.reportInvalid, message: message, help: help) }

    public var description: String { diagnostic.rendered(sourceLine: nil) }
}

extension RunReport {
    /// Reads the JSON report `data` written by ``JSONReporter`` (from `source`, for messages).
    ///
    /// Credentials in the report are already masked; the reporters mask idempotently, so the rebuilt run renders
    /// the same pages as the original. Reports without a `shard` member count as unsharded.
    public static func read(_ data: Data, source: String, spool: ExchangeSpool? = nil) throws(RunReportError)
        -> RunReport
    {
        try read(bytes: [UInt8](data), source: source, spool: spool)
    }

    /// Reads a JSON report step by step: each step is parsed on its own (and its exchange moved to `spool` when
    /// one is given), so memory holds the text, one step's tree and the compact results, never the whole tree.
    /// A text the scan does not follow is parsed whole, with the same errors. Either way at most one JSON value
    /// is read per 64 bytes of text (and at least 200,000 at a time).
    public static func read(bytes: [UInt8], source: String, spool: ExchangeSpool? = nil) throws(RunReportError)
        -> RunReport
    {
        let spans = JSONSpans(bytes: bytes)
        let reader = RunReportReader(source: source, spans: spans, spool: spool)
        if let parts = try ReportParts(spans, source: source) { return try reader.report(parts.root, parts.suites) }
        return try reader.report(try spans.parse(0..<bytes.count, source: source), nil)
    }
}

/// A report's text cut into what is parsed at once: the top-level members but `suites`, and for each suite its
/// members but `steps`, whose elements are parsed one by one as they are read.
struct ReportParts {
    struct SuitePart {
        var value: JSONValue
        var steps: [Range<Int>]?
    }

    var root: JSONValue
    var suites: [SuitePart]?

    /// `nil` when the text is not laid out as the scan expects.
    init?(_ spans: JSONSpans, source: String) throws(RunReportError) {
        guard let members = spans.members(0..<spans.bytes.count) else { return nil }
        var object = JSONObject()
        var suites: [SuitePart]?
        for (key, range) in members {
            guard key == "suites" else {
                object[key] = try spans.parse(range, source: source)
                continue
            }
            guard let elements = spans.elements(range) else { return nil }
            var parts: [SuitePart] = []
            parts.reserveCapacity(elements.count)
            for element in elements {
                guard let suiteMembers = spans.members(element) else { return nil }
                var suite = JSONObject()
                var steps: [Range<Int>]?
                for (suiteKey, suiteRange) in suiteMembers {
                    if suiteKey == "steps" {
                        guard let list = spans.elements(suiteRange) else { return nil }
                        steps = list
                    } else {
                        suite[suiteKey] = try spans.parse(suiteRange, source: source)
                    }
                }
                parts.append(SuitePart(value: .object(suite), steps: steps))
            }
            suites = parts
        }
        root = .object(object)
        self.suites = suites
    }
}

/// Walks a JSON report, naming the JSON path of whatever is missing or out of range.
struct RunReportReader {
    var source: String
    var spans: JSONSpans
    var spool: ExchangeSpool?

    func fail(_ path: String, _ what: String) -> RunReportError {
        RunReportError(
            "\(source): \(path): \(what)",
            help: "pass the unmodified files written by 'conform run --report json:FILE'")
    }

    func object(_ v: JSONValue?, _ path: String) throws(RunReportError) -> JSONValue {
        guard let v, v.objectValue != nil else { throw fail(path, "expected an object") }
        return v
    }

    func string(_ v: JSONValue?, _ path: String) throws(RunReportError) -> String {
        guard let s = v?.stringValue else { throw fail(path, "expected a string") }
        return s
    }

    func int(_ v: JSONValue?, _ path: String, _ range: ClosedRange<Int>) throws(RunReportError) -> Int {
        guard case .int(let i)? = v else { throw fail(path, "expected a whole number") }
        guard range.contains(i) else { throw fail(path, "\(i) is outside \(range.lowerBound)...\(range.upperBound)") }
        return i
    }

    func number(_ v: JSONValue?, _ path: String) throws(RunReportError) -> Double {
        guard let d = v?.numberValue, d.isFinite, d >= 0 else { throw fail(path, "expected a number of seconds") }
        return d
    }

    func array(_ v: JSONValue?, _ path: String) throws(RunReportError) -> [JSONValue] {
        guard let a = v?.arrayValue else { throw fail(path, "expected an array") }
        return a
    }

    func strings(_ v: JSONValue?, _ path: String) throws(RunReportError) -> [String] {
        var out: [String] = []
        for (i, item) in try array(v, path).enumerated() { out.append(try string(item, "\(path)[\(i)]")) }
        return out
    }

    static let maxCount = 10_000_000

    /// The run of `root`; its suites are `parts` when the text was cut into parts, else `root`'s own.
    func report(_ root: JSONValue, _ parts: [ReportParts.SuitePart]?) throws(RunReportError) -> RunReport {
        _ = try object(root, "$")
        guard root["tool"]?.stringValue == "conform" else { throw fail("$.tool", "not a Conform JSON report") }
        let target = try string(root["target"], "$.target")
        let duration = try number(root["duration"], "$.duration")
        let suitesJSON: [JSONValue]
        if let parts { suitesJSON = parts.map(\.value) } else { suitesJSON = try array(root["suites"], "$.suites") }
        guard suitesJSON.count <= Self.maxCount else { throw fail("$.suites", "more than \(Self.maxCount) suites") }
        var shard = Shard.whole
        var planSuites = suitesJSON.count
        if let s = root["shard"] {
            _ = try object(s, "$.shard")
            let count = try int(s["count"], "$.shard.count", 1...Shard.maxCount)
            let index = try int(s["index"], "$.shard.index", 1...count)
            shard = Shard(index: index, count: count) ?? .whole
            planSuites = try int(s["planSuites"], "$.shard.planSuites", suitesJSON.count...Self.maxCount)
        }
        var suites: [SuiteResult] = []
        var positions: [Int] = []
        for (i, item) in suitesJSON.enumerated() {
            let path = "$.suites[\(i)]"
            _ = try object(item, path)
            positions.append(
                item["position"] == nil ? i : try int(item["position"], "\(path).position", 0...(planSuites - 1)))
            suites.append(try suite(item, steps: parts?[i].steps, path))
        }
        let kind = try self.kind(root["kind"])
        var result = RunResult(suites: suites, duration: duration, target: target, kind: kind)
        if let command = try self.command(root["command"]) {
            guard command.kind == kind else {
                throw fail("$.command", "a \(command.rawValue) result is of kind \(command.kind), not \(kind)")
            }
            result.command = command
        }
        try repetitions(root, into: &result)
        result.contactedOrigins = try origins(root["origins"])
        result.scope = try scope(root, shard: shard)
        result.provenance = try provenance(root)
        result.checkedTraffic = try checkedTraffic(root["traffic"])
        return RunReport(
            result: result, placement: ShardPlacement(shard: shard, planSuites: planSuites, positions: positions),
            source: source)
    }

    /// What a client check read (`traffic`), when the report has it.
    func checkedTraffic(_ value: JSONValue?) throws(RunReportError) -> RunResult.CheckedTraffic? {
        guard let value else { return nil }
        _ = try object(value, "$.traffic")
        let rules = try int(value["rules"], "$.traffic.rules", 0...Self.maxCount)
        return RunResult.CheckedTraffic(
            exchanges: try int(value["exchanges"], "$.traffic.exchanges", 0...Int.max),
            appEvents: try int(value["appEvents"], "$.traffic.appEvents", 0...Int.max), rules: rules,
            rulesExercised: try int(value["rulesExercised"], "$.traffic.rulesExercised", 0...rules))
    }

    /// The origins a run sent to: each an origin as the runner writes it (`scheme://host[:port]`), or the target's
    /// description for origin-form requests; at most ``maxCount``.
    func origins(_ value: JSONValue?) throws(RunReportError) -> [String] {
        guard let value else { return [] }
        let items = try strings(value, "$.origins")
        guard items.count <= Self.maxCount else { throw fail("$.origins", "more than \(Self.maxCount) origins") }
        for (i, item) in items.enumerated() where item.isEmpty || item.utf8.count > 1024 {
            throw fail("$.origins[\(i)]", "an origin is 1 to 1024 characters")
        }
        return items
    }

    /// A repeated run's `repetitions` and `flaky` steps: both or neither (a run played once), each flaky step of a
    /// suite the report holds, with two to `repetitions` verdicts.
    func repetitions(_ root: JSONValue, into result: inout RunResult) throws(RunReportError) {
        guard let count = root["repetitions"] else {
            if root["flaky"] != nil { throw fail("$.flaky", "flaky steps without 'repetitions'") }
            return
        }
        result.repetitions = try int(count, "$.repetitions", 2...RunResult.maxRepetitions)
        let items = try array(root["flaky"], "$.flaky")
        guard items.count <= result.stepCount else {
            throw fail("$.flaky", "\(items.count) flaky steps, but the report holds \(result.stepCount) steps")
        }
        let suiteIDs = Set(result.suites.map(\.group.id))
        for (i, item) in items.enumerated() {
            let path = "$.flaky[\(i)]"
            _ = try object(item, path)
            let suiteID = try string(item["suite"], "\(path).suite")
            guard suiteIDs.contains(suiteID) else { throw fail("\(path).suite", "no suite '\(suiteID)' in the report") }
            let verdictsJSON = try array(item["verdicts"], "\(path).verdicts")
            guard (2...result.repetitions).contains(verdictsJSON.count) else {
                throw fail(
                    "\(path).verdicts",
                    "\(verdictsJSON.count) verdicts; a flaky step has from 2 to \(result.repetitions) (one a repetition)"
                )
            }
            var verdicts: [Verdict] = []
            for (n, v) in verdictsJSON.enumerated() { verdicts.append(try verdict(v, "\(path).verdicts[\(n)]")) }
            result.flaky.append(
                FlakyStep(
                    suiteID: suiteID, flow: try string(item["flow"], "\(path).flow"),
                    index: try int(item["index"], "\(path).index", 1...Self.maxCount) - 1,
                    name: try string(item["name"], "\(path).name"),
                    location: try string(item["location"], "\(path).location"), verdicts: verdicts))
        }
    }

    /// A suite and its steps: `v`'s own, or the ranges of their text, parsed one at a time.
    func suite(_ v: JSONValue, steps stepRanges: [Range<Int>]?, _ path: String) throws(RunReportError)
        -> SuiteResult
    {
        let spec = try object(v["spec"], "\(path).spec")
        let model = ResultGroup(
            kind: try groupKind(v["group"], "\(path).group"), id: try string(v["id"], "\(path).id"),
            title: try string(v["title"], "\(path).title"), step: try string(v["step"], "\(path).step"),
            spec: SpecReference(
                section: try string(spec["section"], "\(path).spec.section"),
                decisions: try strings(spec["decisions"], "\(path).spec.decisions")),
            file: try string(v["file"], "\(path).file"),
            contentHash: try string(v["contentHash"], "\(path).contentHash"),
            profile: try string(v["profile"], "\(path).profile"))
        var steps: [StepResult] = []
        func add(_ step: StepResult) { steps.append(spool.map { step.spooled(into: $0) } ?? step) }
        if let stepRanges {
            steps.reserveCapacity(stepRanges.count)
            for (i, range) in stepRanges.enumerated() {
                add(try step(try spans.parse(range, source: source), suiteID: model.id, "\(path).steps[\(i)]"))
            }
        } else {
            for (i, item) in try array(v["steps"], "\(path).steps").enumerated() {
                add(try step(item, suiteID: model.id, "\(path).steps[\(i)]"))
            }
        }
        return SuiteResult(group: model, steps: steps, duration: try number(v["duration"], "\(path).duration"))
    }

    func step(_ v: JSONValue, suiteID: String, _ path: String) throws(RunReportError) -> StepResult {
        _ = try object(v, path)
        let (file, mark) = try location(try string(v["location"], "\(path).location"), "\(path).location")
        var spec = SpecReference(section: try string(v["spec"], "\(path).spec"))
        if let detail = v["specReference"] {
            spec = SpecReference(
                section: try string(detail["section"], "\(path).specReference.section"),
                decisions: try strings(detail["decisions"], "\(path).specReference.decisions"))
        }
        var failures: [CheckFailure] = []
        for (i, f) in try array(v["failures"], "\(path).failures").enumerated() {
            failures.append(try failure(f, "\(path).failures[\(i)]"))
        }
        var step = StepResult(
            suiteID: suiteID, flow: try string(v["flow"], "\(path).flow"),
            index: try int(v["index"], "\(path).index", 1...Self.maxCount) - 1,
            name: try string(v["name"], "\(path).name"),
            file: file, mark: mark, spec: spec, verdict: try verdict(v["verdict"], "\(path).verdict"),
            request: try v["request"].map { r throws(RunReportError) in try request(r, "\(path).request") },
            response: try v["response"].map { r throws(RunReportError) in try response(r, "\(path).response") },
            failures: failures,
            error: v["error"] == nil ? nil : try string(v["error"], "\(path).error"),
            attempts: try int(v["attempts"], "\(path).attempts", 0...Self.maxCount),
            duration: try number(v["duration"], "\(path).duration"),
            check: try check(v["check"], "\(path).check"))
        if let retries = v["retries"] { step.retries = try int(retries, "\(path).retries", 0...Self.maxCount) }
        // A record is written with its `seq` as the line; the line 0 (`0:0`, or `0:1` in older reports) has no place.
        if mark.line == 0 {
            step.place = .none
        } else if v["record"] != nil {
            _ = try string(v["record"], "\(path).record")
            step.place = .record(seq: mark.line)
        }
        return step
    }
}
