import ConformCore
import Foundation

/// The whole result as one JSON document, written when the run finishes.
///
/// The document carries everything the other reporters show, so `conform merge` rebuilds the run from the JSON
/// reports of its shards (`RunReport`); credentials are masked before they are written.
public struct JSONReporter: RunReporter {
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

    public func handle(_ event: RunEvent) {
        if case .runFinished(let result) = event { sink.write(render(result).serialized(.pretty) + "\n") }
    }

    public func render(_ result: RunResult) -> JSONValue {
        let counts = result.counts
        let masker = SecretMasker(learningFrom: result)
        let placement = self.placement ?? .whole(suiteCount: result.suites.count)
        return [
            "tool": "conform",
            "target": .string(result.target),
            "exitCode": .int(Int(result.exitCode)),
            "result": .string(
                result.exitCode == 0 ? "conforms" : result.exitCode == 1 ? "does not conform" : "could not run"),
            "duration": time(result.duration),
            "counts": .object(
                JSONObject(
                    Verdict.reportOrder.map {
                        ($0.rawValue, .int(counts[$0, default: 0]))
                    })),
            "shard": [
                "index": .int(placement.shard.index), "count": .int(placement.shard.count),
                "planSuites": .int(placement.planSuites),
            ],
            "suites": .array(
                result.suites.enumerated().map { i, s in
                    suite(s, position: i < placement.positions.count ? placement.positions[i] : i, masker)
                }),
        ]
    }

    func suite(_ result: SuiteResult, position: Int, _ masker: SecretMasker) -> JSONValue {
        let s = result.suite
        return [
            "position": .int(position), "id": .string(s.id), "title": .string(s.title), "step": .string(s.step),
            "file": .string(s.file),
            "contentHash": .string(s.contentHash), "profile": .string(s.profile),
            "spec": ["section": .string(s.spec.section), "decisions": .array(s.spec.decisions.map { .string($0) })],
            "verdict": .string(result.verdict.rawValue), "duration": time(result.duration),
            "steps": .array(result.steps.map { step($0, masker) }),
        ]
    }

    /// One step; credentials in headers, URLs, bodies and messages are masked (`SecretMasker`).
    func step(_ s: StepResult, _ masker: SecretMasker) -> JSONValue {
        var o = JSONObject()
        o["flow"] = .string(s.flow)
        o["index"] = .int(s.index + 1)
        o["name"] = .string(s.name)
        o["location"] = .string("\(s.file):\(s.mark)")
        o["spec"] = .string(s.spec.summary)
        o["specReference"] = [
            "section": .string(s.spec.section), "decisions": .array(s.spec.decisions.map { .string($0) }),
        ]
        o["verdict"] = .string(s.verdict.rawValue)
        if let e = s.error { o["error"] = .string(masker.text(e)) }
        o["attempts"] = .int(s.attempts)
        o["duration"] = time(s.duration)
        if let r = s.request {
            o["request"] = [
                "method": .string(r.method.rawValue), "url": .string(masker.text(r.url)),
                "headers": headers(r.headerFields, masker),
                "body": body(r.body, masker),
            ]
        }
        if let r = s.response {
            o["response"] = [
                "status": .int(r.status.code), "headers": headers(r.headerFields, masker), "body": body(r.body, masker),
            ]
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
