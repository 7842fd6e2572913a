import ConformCore
import Foundation

extension HTMLReporter {
    /// Bodies longer than this many characters are cut in the report.
    static let bodyLimit = 64 * 1024

    func writeSuiteSection(_ entry: Entry, masker: SecretMasker, to sink: any TextSink) {
        let result = entry.result
        let suite = result.group
        var out =
            "<section class=\"suite \(Self.cssClass(result.verdict))\" id=\"\(entry.anchor)\" aria-labelledby=\"\(entry.anchor)-title\">\n"
        out +=
            "<h2 id=\"\(entry.anchor)-title\">\(badge(result.verdict)) <span class=\"suite-id\">\(Escaping.html(suite.id))</span> <span class=\"suite-title\">\(Escaping.html(suite.title))</span></h2>\n"
        out += "<dl class=\"facts suite-facts\">\n"
        out += fact("File", "<code>\(Escaping.html(suite.file))</code>")
        // A suite belongs to a flow step or says it has none; a device flow or a file has none to name.
        if suite.kind == .suite || !suite.step.isEmpty {
            out += fact(
                "Flow step",
                suite.step.isEmpty
                    ? "<span class=\"muted\">(none)</span>" : "<code>\(Self.linkedFlowStep(suite.step))</code>")
        }
        if suite.kind == .suite {
            out += fact("Profile", "<code>\(Escaping.html(suite.profile))</code>")
            out += fact("Version (SHA-256)", version(suite.contentHash, short: false))
        }
        if !suite.spec.isEmpty { out += fact("Spec", Self.linkedSpec(suite.spec.summary)) }
        out += "</dl>\n"
        out += "<p class=\"back\"><a href=\"#verdict-matrix\">↑ Back to the verdict matrix</a></p>\n"
        sink.write(out)
        for (i, step) in result.steps.enumerated() {
            sink.write(stepArticle(step, anchor: "\(entry.anchor)-step\(i + 1)", masker: masker))
        }
        sink.write("</section>\n")
    }

    func stepArticle(_ step: StepResult, anchor: String, masker: SecretMasker) -> String {
        let retried = step.retries > 0 ? " data-retries=\"\(step.retries)\"" : ""
        var out =
            "<article class=\"step \(Self.cssClass(step.verdict))\" id=\"\(anchor)\"\(retried)>\n<details open>\n"
        out +=
            "<summary><h3>\(badge(step.verdict)) <span class=\"step-name\">\(Escaping.html(step.flow)) › \(step.index + 1). \(Escaping.html(step.name))</span></h3></summary>\n"
        out += "<dl class=\"facts step-facts\">\n"
        out += fact(
            step.locatesRecord ? "Record" : step.place == .none ? "File" : "Source",
            "<code>\(Escaping.html(step.location))</code>")
        if !step.spec.isEmpty { out += fact("Spec", Self.linkedSpec(step.spec.summary)) }
        if step.attempts > 1 { out += fact("Attempts", String(step.attempts)) }
        if step.retries > 0 {
            out += fact("Retries", "\(step.retries) (a gateway's 502/503/504 page or a connection refused or reset)")
        }
        if !deterministic {
            out += fact(
                "Duration",
                step.duration < 1
                    ? String(format: "%.1f ms", step.duration * 1000) : String(format: "%.2f s", step.duration))
        }
        out += "</dl>\n"
        if let error = step.error {
            let skipped = !step.verdict.judged
            let label = step.verdict == .notExercised ? "Not exercised" : skipped ? "Skipped" : "Error"
            let prefix = label.lowercased() + ": "
            let text = skipped && error.hasPrefix(prefix) ? String(error.dropFirst(prefix.count)) : error
            out +=
                "<p class=\"\(skipped ? "skip-text" : "error-text")\"><strong>\(label):</strong> \(Escaping.html(masker.text(text)))</p>\n"
        }
        if step.failures.contains(where: { !$0.mismatches.isEmpty }) {
            out += diff(step.failures, severities: step.check.hasSeverities, masker: masker)
        }
        let findings = step.failures.flatMap(\.findings)
        if !findings.isEmpty { out += table(findings, masker: masker) }
        if step.request != nil || step.response != nil {
            out += "<div class=\"exchange\">\n"
            out += step.request.map { request($0, masker: masker) } ?? ""
            out +=
                step.response.map { response($0, masker: masker) }
                ?? "<section class=\"response\"><h4>Response</h4><p class=\"muted\">No response.</p></section>\n"
            out += "</div>\n"
        }
        out += "</details>\n</article>\n"
        return out
    }

    /// The failed checks as a table; the severity column only where severities mean something (suite steps).
    func diff(_ failures: [CheckFailure], severities: Bool = true, masker: SecretMasker) -> String {
        var out = "<table class=\"diff\">\n<caption>Differences</caption>\n"
        out +=
            "<thead><tr><th scope=\"col\">Path</th>\(severities ? "<th scope=\"col\">Severity</th>" : "")<th scope=\"col\">Expected</th><th scope=\"col\">Actual</th></tr></thead>\n<tbody>\n"
        for failure in failures {
            let severity =
                failure.severity == .assumed ? "assumed \(failure.decision ?? "")" : failure.severity.rawValue
            let cls = failure.severity == .assumed ? "v-assumed" : "v-fail"
            for m in failure.mismatches {
                out += "<tr><th scope=\"row\"><code>\(Escaping.html(masker.text(m.path)))</code></th>"
                if severities { out += "<td><span class=\"severity \(cls)\">\(Self.linkedSpec(severity))</span></td>" }
                out += "<td class=\"expected\"><code>\(Escaping.html(masker.text(m.expected)))</code></td>"
                out += "<td class=\"actual\"><code>\(Escaping.html(masker.text(m.actual)))</code>"
                if let note = m.note { out += "<div class=\"note\">\(Escaping.html(masker.text(note)))</div>" }
                out += "</td></tr>\n"
            }
        }
        out += "</tbody>\n</table>\n"
        return out
    }

    /// The rules broken, each with what it requires, what was found and how to put it right.
    func table(_ findings: [Finding], masker: SecretMasker) -> String {
        var out = "<table class=\"diff\">\n<caption>Findings</caption>\n"
        out +=
            "<thead><tr><th scope=\"col\">Rule</th><th scope=\"col\">Requires</th><th scope=\"col\">Found</th></tr></thead>\n<tbody>\n"
        for f in findings {
            out += "<tr><th scope=\"row\"><code>\(Escaping.html(masker.text(f.heading)))</code></th>"
            out += "<td class=\"expected\">\(Escaping.html(masker.text(f.requirement)))</td>"
            out += "<td class=\"actual\">\(Escaping.html(masker.text(f.found)))"
            out += "<div class=\"note\">help: \(Escaping.html(masker.text(f.help)))</div></td></tr>\n"
        }
        out += "</tbody>\n</table>\n"
        return out
    }

    func request(_ request: HTTPRequest, masker: SecretMasker) -> String {
        message(
            "request", title: "Request", strong: Escaping.html(request.method.rawValue),
            rest: Escaping.html(masker.text(request.url)),
            fields: request.headerFields, body: request.body, masker: masker)
    }

    func response(_ response: HTTPResponse, masker: SecretMasker) -> String {
        message(
            "response", title: "Response", strong: "\(response.status.code)",
            rest: Escaping.html(response.status.reasonPhrase),
            fields: response.headerFields, body: response.body, masker: masker)
    }

    /// A request's or response's section: its start line (the method or status code in bold, then the rest,
    /// both already escaped), its headers and its body.
    private func message(
        _ kind: String, title: String, strong: String, rest: String, fields: HTTPFields, body bytes: Data,
        masker: SecretMasker
    ) -> String {
        var out = "<section class=\"\(kind)\">\n<h4>\(title)</h4>\n"
        out += "<p class=\"start-line\"><code><strong>\(strong)</strong> \(rest)</code></p>\n"
        out += headers(fields, masker: masker)
        out += body(bytes, masker: masker)
        out += "</section>\n"
        return out
    }

    func headers(_ fields: HTTPFields, masker: SecretMasker) -> String {
        guard !fields.isEmpty else { return "<p class=\"muted\">No headers.</p>\n" }
        var out = "<table class=\"headers\"><caption class=\"visually-hidden\">Headers</caption><tbody>\n"
        for field in fields {
            out +=
                "<tr><th scope=\"row\">\(Escaping.html(field.name))</th><td>\(Escaping.html(masker.header(name: field.name, value: field.value)))</td></tr>\n"
        }
        out += "</tbody></table>\n"
        return out
    }

    /// JSON pretty-printed, text as is, anything else described; long bodies cut.
    func body(_ data: Data, masker: SecretMasker) -> String {
        if data.isEmpty { return "<p class=\"muted\">No body.</p>\n" }
        guard let text = String(data: data, encoding: .utf8) else {
            return "<p class=\"binary\">(\(data.count) bytes, not UTF-8)</p>\n"
        }
        let budget = JSONValue.memoryBudget(forDocumentOf: data.count)
        var shown = (try? JSONValue.parse(data, memoryBudget: budget))?.serialized(.pretty) ?? text
        var cut = ""
        if shown.count > Self.bodyLimit {
            shown = String(shown.prefix(Self.bodyLimit))
            cut = "<p class=\"muted\">(cut after \(Self.bodyLimit) characters; \(data.count) bytes in all)</p>\n"
        }
        return "<pre class=\"body\">\(Escaping.html(masker.text(shown)))</pre>\n" + cut
    }
}
