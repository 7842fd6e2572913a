import ConformCore
import ConformDiagnostics
import Foundation

/// The values of a JSON report read back: closed sets (command, kinds, severities, verdicts) checked against their
/// members, locations, failures and exchanges, each naming its JSON path when it is out of range.
extension RunReportReader {
    /// The command a report is of; `nil` when absent, as in reports of older versions.
    func command(_ v: JSONValue?) throws(RunReportError) -> RunResult.Command? {
        try v.map { v throws(RunReportError) in try closed(v, "$.command", "command") }
    }

    /// What a group is: a suite when absent (as in reports of older versions).
    func groupKind(_ v: JSONValue?, _ path: String) throws(RunReportError) -> ResultGroup.Kind {
        try v.map { v throws(RunReportError) in try closed(v, path, "group") } ?? .suite
    }

    /// What kind of check a step is: a suite expectation when absent.
    func check(_ v: JSONValue?, _ path: String) throws(RunReportError) -> StepResult.Check {
        try v.map { v throws(RunReportError) in try closed(v, path, "check") } ?? .suiteExpectation
    }

    /// A member of the closed set `T`, spelt as its raw value; anything else names the set.
    func closed<T: RawRepresentable & CaseIterable>(_ v: JSONValue, _ path: String, _ noun: String)
        throws(RunReportError) -> T where T.RawValue == String
    {
        let text = try string(v, path)
        guard let value = T(rawValue: text) else {
            throw fail(
                path,
                "unknown \(noun) '\(text)'; expected one of: " + T.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return value
    }

    /// `conformance` (also when absent, as in reports of older versions) or `comparison`.
    func kind(_ v: JSONValue?) throws(RunReportError) -> RunResult.Kind {
        guard let v else { return .conformance }
        switch try string(v, "$.kind") {
        case "conformance": return .conformance
        case "comparison": return .comparison
        case let other: throw fail("$.kind", "unknown kind '\(other)'; expected conformance or comparison")
        }
    }

    /// One of the severities a suite can give a check; anything else would reach the pages as it is.
    func severity(_ v: JSONValue?, _ path: String) throws(RunReportError) -> Severity {
        let text = try string(v, path)
        let known: [Severity] = [.must, .should, .assumed]
        guard let severity = known.first(where: { $0.rawValue == text }) else {
            throw fail(
                path,
                "unknown severity '\(text)'; expected one of: \(known.map(\.rawValue).joined(separator: ", "))")
        }
        return severity
    }

    func verdict(_ v: JSONValue?, _ path: String) throws(RunReportError) -> Verdict {
        let text = try string(v, path)
        guard let verdict = Verdict(rawValue: text) else {
            throw fail(
                path,
                "unknown verdict '\(text)'; expected one of: \(Verdict.reportOrder.map(\.rawValue).joined(separator: ", "))"
            )
        }
        return verdict
    }

    /// `FILE:LINE:COLUMN`, split from the right (the file may hold colons).
    func location(_ text: String, _ path: String) throws(RunReportError) -> (String, SourceMark) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 3, let line = Int(parts[parts.count - 2]), let column = Int(parts[parts.count - 1]),
            line >= 0, column >= 0
        else { throw fail(path, "expected FILE:LINE:COLUMN, got '\(text)'") }
        return (parts.dropLast(2).joined(separator: ":"), SourceMark(line: line, column: column))
    }

    func failure(_ v: JSONValue, _ path: String) throws(RunReportError) -> CheckFailure {
        _ = try object(v, path)
        var mismatches: [Mismatch] = []
        for (i, m) in try array(v["mismatches"], "\(path).mismatches").enumerated() {
            let p = "\(path).mismatches[\(i)]"
            mismatches.append(
                Mismatch(
                    path: try string(m["path"], "\(p).path"), expected: try string(m["expected"], "\(p).expected"),
                    actual: try string(m["actual"], "\(p).actual"),
                    note: m["note"]?.isNull ?? true ? nil : try string(m["note"], "\(p).note")))
        }
        var findings: [Finding] = []
        // Reports written before findings had their own member hold none.
        let listed = v["findings"] == nil ? [] : try array(v["findings"], "\(path).findings")
        for (i, f) in listed.enumerated() {
            let p = "\(path).findings[\(i)]"
            findings.append(
                Finding(
                    rule: try string(f["rule"], "\(p).rule"), place: try string(f["place"], "\(p).place"),
                    requirement: try string(f["requirement"], "\(p).requirement"),
                    found: try string(f["found"], "\(p).found"), help: try string(f["help"], "\(p).help")))
        }
        return CheckFailure(
            severity: try severity(v["severity"], "\(path).severity"),
            decision: v["decision"]?.isNull ?? true ? nil : try string(v["decision"], "\(path).decision"),
            mismatches: mismatches, findings: findings)
    }

    func request(_ v: JSONValue, _ path: String) throws(RunReportError) -> HTTPRequest {
        _ = try object(v, path)
        return HTTPRequest(
            method: HTTPMethod(try string(v["method"], "\(path).method")), url: try string(v["url"], "\(path).url"),
            headerFields: try headers(v["headers"], "\(path).headers"), body: try body(v["body"], "\(path).body"))
    }

    func response(_ v: JSONValue, _ path: String) throws(RunReportError) -> HTTPResponse {
        _ = try object(v, path)
        var response = HTTPResponse(
            status: HTTPStatus(try int(v["status"], "\(path).status", 0...999)),
            headerFields: try headers(v["headers"], "\(path).headers"), body: try body(v["body"], "\(path).body"))
        if v["httpVersion"] != nil {
            let version = try string(v["httpVersion"], "\(path).httpVersion")
            let known = ["HTTP/1.0", "HTTP/1.1", "HTTP/2", "HTTP/3"]
            guard known.contains(version) else {
                throw fail("\(path).httpVersion", "expected one of \(known.joined(separator: ", "))")
            }
            response.httpVersion = version
        }
        return response
    }

    func headers(_ v: JSONValue?, _ path: String) throws(RunReportError) -> HTTPFields {
        var fields = HTTPFields()
        for (i, pair) in try array(v, path).enumerated() {
            let p = try strings(pair, "\(path)[\(i)]")
            guard p.count == 2 else { throw fail("\(path)[\(i)]", "expected [name, value]") }
            fields.append(name: p[0], value: p[1])
        }
        return fields
    }

    func body(_ v: JSONValue?, _ path: String) throws(RunReportError) -> Data {
        switch v {
        case nil, .null?: return Data()
        case .string(let s)?: return Data(s.utf8)
        default:
            guard let b64 = v?["base64"]?.stringValue, let data = Data(base64Encoded: b64) else {
                throw fail(path, "expected text, null or {\"base64\": …}")
            }
            return data
        }
    }
}
