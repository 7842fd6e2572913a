import ConformCore
import Foundation

extension RunReport {
    /// The members of a JSON report that reading it back derives rather than reads: `exitCode`, `result`, `counts`,
    /// `certification`, `partialReasons` and each suite's `id` and `verdict` (as `suites`), as written. Only those members are parsed, one suite at a
    /// time, so the report's steps and exchanges are never held as a tree; a text the scan does not follow is
    /// parsed whole, with at most one JSON value per 64 bytes of text.
    public static func writtenVerdicts(bytes: [UInt8], source: String) throws(RunReportError) -> JSONValue {
        let spans = JSONSpans(bytes: bytes)
        let kept: Set<String> = ["exitCode", "result", "counts", "certification", "partialReasons"]
        guard let members = spans.members(0..<bytes.count) else {
            return keep(try spans.parse(0..<bytes.count, source: source))
        }
        var out = JSONObject()
        for (key, range) in members {
            if kept.contains(key) {
                out[key] = try spans.parse(range, source: source)
            } else if key == "suites" {
                guard let elements = spans.elements(range) else {
                    out[key] = keep(try spans.parse(range, source: source))["suites"] ?? .null
                    continue
                }
                var suites: [JSONValue] = []
                for element in elements {
                    var suite = JSONObject()
                    for (suiteKey, suiteRange) in spans.members(element) ?? []
                    where ["id", "verdict"].contains(suiteKey) {
                        suite[suiteKey] = try spans.parse(suiteRange, source: source)
                    }
                    suites.append(.object(suite))
                }
                out[key] = .array(suites)
            }
        }
        return .object(out)
    }

    /// `report` with only the members ``writtenVerdicts(bytes:source:)`` gives.
    private static func keep(_ report: JSONValue) -> JSONValue {
        var out = JSONObject()
        for key in ["exitCode", "result", "counts", "certification", "partialReasons"] { out[key] = report[key] }
        if let suites = report["suites"]?.arrayValue {
            out["suites"] = .array(
                suites.map { suite in
                    var kept = JSONObject()
                    kept["id"] = suite["id"]
                    kept["verdict"] = suite["verdict"]
                    return .object(kept)
                })
        }
        return .object(out)
    }
}
