import ConformCore
import Foundation

/// The whole result as one JSON document, written when the run finishes.
///
/// The document carries everything the other reporters show, so `conform merge` rebuilds the run from the JSON
/// reports of its shards (`RunReport`); credentials are masked before they are written.
public struct JSONReporter: DocumentReporter {
    public var sink: any TextSink
    /// Zero the times and drop them from output, for golden files.
    public var deterministic: Bool
    /// Which shard of the whole plan the run was; `nil` for an unsharded run.
    public var placement: ShardPlacement?

    public init(sink: any TextSink, deterministic: Bool = false, placement: ShardPlacement? = nil) {
        self.sink = sink
        self.deterministic = deterministic
        self.placement = placement
    }

    /// The whole document as one value.
    public func render(_ result: RunResult) -> JSONValue {
        let masker = SecretMasker(learningFrom: result)
        var document = head(result)
        document["suites"] = .array(
            result.suites.enumerated().map { i, s in
                var o = suiteHead(s, position: position(i, result))
                o["steps"] = .array(s.steps.map { step($0, masker) })
                return .object(o)
            })
        return .object(document)
    }

    /// Writes the document to `sink` step by step, laid out exactly as `render(result).serialized(.pretty)`, so no
    /// more than one step's JSON is held at a time.
    public func write(_ result: RunResult, to sink: any TextSink) {
        let masker = SecretMasker(learningFrom: result)
        Self.writeObject(head(result), streaming: "suites", count: result.suites.count, indent: 0, to: sink) {
            i, indent in
            let suite = result.suites[i]
            Self.writeObject(
                suiteHead(suite, position: position(i, result)), streaming: "steps", count: suite.steps.count,
                indent: indent, to: sink
            ) { j, indent in
                sink.write(Self.indented(step(suite.steps[j], masker).serialized(.pretty), indent))
            }
        }
        sink.write("\n")
    }

    /// `{ head…, "key": [ element 0, … ] }` in the layout of `serialized(.pretty)`, elements written by `element`.
    static func writeObject(
        _ head: JSONObject, streaming key: String, count: Int, indent: Int, to sink: any TextSink,
        element: (Int, Int) -> Void
    ) {
        let inner = String(repeating: "  ", count: indent + 1)
        var out = "{"
        for name in head.keys {
            out += "\n" + inner
            JSONValue.writeString(name, into: &out)
            out += ": " + indented(head[name]!.serialized(.pretty), indent + 1) + ","
        }
        out += "\n" + inner
        JSONValue.writeString(key, into: &out)
        out += count == 0 ? ": []" : ": ["
        sink.write(out)
        for i in 0..<count {
            sink.write((i > 0 ? "," : "") + "\n" + String(repeating: "  ", count: indent + 2))
            element(i, indent + 2)
        }
        sink.write((count == 0 ? "" : "\n" + inner + "]") + "\n" + String(repeating: "  ", count: indent) + "}")
    }

    /// Pretty JSON text moved right by `indent` levels (its strings hold no raw newlines).
    static func indented(_ text: String, _ indent: Int) -> String {
        indent == 0 ? text : text.replacingOccurrences(of: "\n", with: "\n" + String(repeating: "  ", count: indent))
    }

    func position(_ i: Int, _ result: RunResult) -> Int {
        let placement = self.placement ?? .whole(suiteCount: result.suites.count)
        return i < placement.positions.count ? placement.positions[i] : i
    }

    /// The document's members before `suites`.
    func head(_ result: RunResult) -> JSONObject {
        let counts = result.counts
        let placement = self.placement ?? .whole(suiteCount: result.suites.count)
        var o = JSONObject([
            ("tool", "conform"),
            ("target", .string(result.target)),
            ("exitCode", .int(Int(result.exitCode))),
            (
                "result",
                .string(result.exitCode == 0 ? "conforms" : result.exitCode == 1 ? "does not conform" : "could not run")
            ),
            ("duration", time(result.duration)),
            ("counts", .object(JSONObject(Verdict.reportOrder.map { ($0.rawValue, .int(counts[$0, default: 0])) }))),
            (
                "shard",
                [
                    "index": .int(placement.shard.index), "count": .int(placement.shard.count),
                    "planSuites": .int(placement.planSuites),
                ]
            ),
        ])
        // Replays and diffs say so: their exit status follows the comparison rules (RunStatus).
        if result.kind == .comparison { o["kind"] = "comparison" }
        // Which command the result is of, and its verdict in that command's words.
        o["command"] = .string(result.command.rawValue)
        o["headline"] = .string(result.headline)
        // What a client check read, and how many of its rules the traffic exercised.
        if let traffic = result.checkedTraffic {
            o["traffic"] = [
                "exchanges": .int(traffic.exchanges), "appEvents": .int(traffic.appEvents),
                "rules": .int(traffic.rules), "rulesExercised": .int(traffic.rulesExercised),
            ]
        }
        // What `--retry` sent again (a gateway's page, a connection refused or reset), over the whole run.
        let retries = result.retries
        if retries.count > 0 { o["retries"] = ["count": .int(retries.count), "steps": .int(retries.steps)] }
        // What the run needed said once (a TLS failure's fix, a cleartext base URL not followed), with its steps.
        if !result.notices.isEmpty {
            o["notices"] = .array(result.notices.map { ["text": .string($0.text), "steps": .int($0.steps)] })
        }
        // Where the requests went: the target's origins, and any host the user allowed.
        if !result.contactedOrigins.isEmpty { o["origins"] = .array(result.contactedOrigins.map { .string($0) }) }
        // A repeated run (`--repeat N`) names the steps whose verdict changed between repetitions.
        if result.repetitions > 1 {
            o["repetitions"] = .int(result.repetitions)
            o["flaky"] = .array(
                result.flaky.map { f in
                    [
                        "suite": .string(f.suiteID), "flow": .string(f.flow), "index": .int(f.index + 1),
                        "name": .string(f.name), "location": .string(f.location),
                        "verdicts": .array(f.verdicts.map { .string($0.rawValue) }),
                    ]
                })
        }
        // Whether the run may stand as a certificate, what it covered, and where it comes from.
        if let certifiability = result.certifiability {
            o["certification"] = .string(certifiability.word)
            o["partialReasons"] = .array(certifiability.reasons.map { .string($0) })
        }
        if let scope = result.scope { o["scope"] = scope.json }
        if let provenance = result.provenance { o["provenance"] = provenance.json(deterministic: deterministic) }
        if let verification = result.verification { o["verification"] = verification.json }
        return o
    }

    /// A suite's members before `steps`.
    func suiteHead(_ result: SuiteResult, position: Int) -> JSONObject {
        let s = result.group
        return JSONObject(
            [
                ("position", .int(position)), ("id", .string(s.id)), ("title", .string(s.title)),
                ("step", .string(s.step)),
                ("file", .string(s.file)), ("contentHash", .string(s.contentHash)), ("profile", .string(s.profile)),
                (
                    "spec",
                    ["section": .string(s.spec.section), "decisions": .array(s.spec.decisions.map { .string($0) })]
                ),
                ("verdict", .string(result.verdict.rawValue)), ("duration", time(result.duration)),
            ] + (s.kind == .suite ? [] : [("group", .string(s.kind.rawValue))]))
    }

    /// One step; credentials in headers, URLs, bodies and messages are masked (`SecretMasker`).
    func step(_ s: StepResult, _ masker: SecretMasker) -> JSONValue {
        var o = JSONObject()
        o["flow"] = .string(s.flow)
        o["index"] = .int(s.index + 1)
        o["name"] = .string(s.name)
        // `location` keeps its `file:line:col` form (a trace record's `seq` as the line, `0:0` where the step has no
        // place in its file) for readers of older reports; `record` names a trace record as `file#seq`.
        o["location"] = .string("\(s.file):\(s.mark)")
        if s.locatesRecord { o["record"] = .string(s.location) }
        if s.check != .suiteExpectation { o["check"] = .string(s.check.rawValue) }
        o["spec"] = .string(s.spec.summary)
        o["specReference"] = [
            "section": .string(s.spec.section), "decisions": .array(s.spec.decisions.map { .string($0) }),
        ]
        o["verdict"] = .string(s.verdict.rawValue)
        if let e = s.error { o["error"] = .string(masker.text(e)) }
        o["attempts"] = .int(s.attempts)
        if s.retries > 0 { o["retries"] = .int(s.retries) }
        o["duration"] = time(s.duration)
        if let r = s.request {
            o["request"] = [
                "method": .string(r.method.rawValue), "url": .string(masker.text(r.url)),
                "headers": headers(r.headerFields, masker),
                "body": body(r.body, masker),
            ]
        }
        if let r = s.response {
            var response = JSONObject([
                ("status", .int(r.status.code)), ("headers", headers(r.headerFields, masker)),
                ("body", body(r.body, masker)),
            ])
            // The version the exchange was spoken in, when the transport knows it (HTTP/2 by ALPN, HTTP/1.1).
            if let version = r.httpVersion { response["httpVersion"] = .string(version) }
            o["response"] = .object(response)
        }
        o["failures"] = .array(
            s.failures.map { f in
                [
                    "severity": .string(f.severity.rawValue), "decision": f.decision.map { .string($0) } ?? .null,
                    "mismatches": .array(
                        f.mismatches.map { m in
                            [
                                "path": .string(masker.text(m.path)), "expected": .string(masker.text(m.expected)),
                                "actual": .string(masker.text(m.actual)),
                                "note": m.note.map { .string(masker.text($0)) } ?? .null,
                            ]
                        }),
                    "findings": .array(
                        f.findings.map { finding in
                            [
                                "rule": .string(masker.text(finding.rule)),
                                "place": .string(masker.text(finding.place)),
                                "requirement": .string(masker.text(finding.requirement)),
                                "found": .string(masker.text(finding.found)),
                                "help": .string(masker.text(finding.help)),
                            ]
                        }),
                ]
            })
        return .object(o)
    }

    func headers(_ fields: HTTPFields, _ masker: SecretMasker) -> JSONValue {
        .array(fields.map { .array([.string($0.name), .string(masker.header(name: $0.name, value: $0.value))]) })
    }

    func body(_ data: Data, _ masker: SecretMasker) -> JSONValue {
        if data.isEmpty { return .null }
        if let text = String(data: data, encoding: .utf8) { return .string(masker.text(text)) }
        return ["base64": .string(data.base64EncodedString())]
    }

    func time(_ t: Double) -> JSONValue { deterministic ? .double(0) : .double((t * 1000).rounded() / 1000) }
}
