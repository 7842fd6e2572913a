import ConformCore
import Foundation

/// JUnit XML, one testcase per step, written when the run finishes.
///
/// The document validates against `junit-10.xsd`, the schema of Jenkins' xUnit plugin: a step's file and line,
/// which that schema has no attribute for, open the text of its failure, error, skip or assumption note.
public struct JUnitReporter: DocumentReporter {
    public var sink: any TextSink
    /// Zero the times, for golden files.
    public var deterministic: Bool

    public init(sink: any TextSink, deterministic: Bool = false) {
        self.sink = sink
        self.deterministic = deterministic
    }

    /// The whole document as text.
    public func render(_ result: RunResult) -> String {
        text(result)
    }

    /// Writes the document to `sink` as it goes, so no more than about 64 KiB of its text is held at a time.
    public func write(_ result: RunResult, to sink: any TextSink) {
        let masker = SecretMasker(learningFrom: result)
        let counts = result.counts
        let runProperties = self.runProperties(result)
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        // `skipped` is counted per testsuite only: junit-10.xsd allows no such attribute on testsuites.
        out +=
            "<testsuites name=\"\(Escaping.xml("Conform: " + result.headline))\" tests=\"\(result.stepCount)\" failures=\"\(counts[.fail, default: 0])\" errors=\"\(counts[.error, default: 0])\" time=\"\(time(result.duration))\">\n"
        sink.write(out)
        for suite in result.suites {
            out = ""
            let s = suite.steps
            out +=
                "  <testsuite name=\"\(Escaping.xml(suite.group.id))\" tests=\"\(s.count)\" failures=\"\(s.filter { $0.verdict == .fail }.count)\" errors=\"\(s.filter { $0.verdict == .error }.count)\" skipped=\"\(s.filter { !$0.verdict.judged }.count)\" time=\"\(time(suite.duration))\" file=\"\(Escaping.xml(suite.group.file))\">\n"
            out += "    <properties>\n"
            out += "      <property name=\"title\" value=\"\(Escaping.xml(suite.group.title))\"/>\n"
            out += "      <property name=\"flowStep\" value=\"\(Escaping.xml(suite.group.step))\"/>\n"
            out += "      <property name=\"spec\" value=\"\(Escaping.xml(suite.group.spec.summary))\"/>\n"
            if !result.contactedOrigins.isEmpty {
                let origins = result.contactedOrigins.joined(separator: " ")
                out += "      <property name=\"origins\" value=\"\(Escaping.xml(origins))\"/>\n"
            }
            out += runProperties
            out += "    </properties>\n"
            for step in s {
                // Handed on in pieces: a suite of 20,000 steps would otherwise be held whole, twice while it grows.
                if out.utf8.count >= 1 << 16 {
                    sink.write(out)
                    out = ""
                }
                out +=
                    "    <testcase classname=\"\(Escaping.xml(suite.group.id)).\(Escaping.xml(step.flow))\" name=\"\(step.index + 1). \(Escaping.xml(step.name))\" time=\"\(time(step.duration))\""
                // What `--retry` did for the step: a line of its output (junit-10.xsd has no properties on a test
                // case; the run's totals are properties of the test suite).
                let retried =
                    step.retries > 0 ? "      <system-out>\(ConsoleReporter.retried(step.retries))</system-out>\n" : ""
                switch step.verdict {
                case .pass where !retried.isEmpty:
                    out += ">\n\(retried)    </testcase>\n"
                case .pass:
                    out += "/>\n"
                case .assumptionNotMet:
                    out +=
                        ">\n      <system-out>\(Escaping.xml("assumption not met\n" + details(step, masker)))</system-out>\n\(retried)    </testcase>\n"
                case .skipped, .notExercised:
                    // A rule the traffic never exercised is skipped with its reason: JUnit has no verdict between.
                    let message = step.error ?? step.verdict.rawValue
                    out +=
                        ">\n      <skipped message=\"\(Escaping.xml(masker.text(message)))\">\(Escaping.xml(step.location))</skipped>\n\(retried)    </testcase>\n"
                case .fail:
                    let first = masker.text(
                        step.failures.first?.mismatches.first.map {
                            "\($0.path): expected \($0.expected), got \($0.actual)"
                        } ?? step.failures.first?.findings.first.map { "\($0.heading): \($0.found)" } ?? step.error
                            ?? "failed")
                    let type =
                        step.check.hasSeverities
                        ? step.failures.map(\.severity).max()?.rawValue ?? "exchange" : step.check.rawValue
                    out +=
                        ">\n      <failure message=\"\(Escaping.xml(first))\" type=\"\(Escaping.xml(type))\">\(Escaping.xml(details(step, masker)))</failure>\n\(retried)    </testcase>\n"
                case .error:
                    out +=
                        ">\n      <error message=\"\(Escaping.xml(masker.text(step.error ?? "could not run")))\" type=\"error\">\(Escaping.xml(details(step, masker)))</error>\n\(retried)    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
            sink.write(out)
        }
        sink.write("</testsuites>\n")
    }

    /// The run's certifiability, scope and provenance as properties, repeated in every testsuite (junit-10.xsd has
    /// no properties on `testsuites`).
    func runProperties(_ result: RunResult) -> String {
        var pairs: [(String, String)] = []
        if let certifiability = result.certifiability {
            pairs.append(("certification", certifiability.word))
            if !certifiability.reasons.isEmpty {
                pairs.append(("partialReasons", certifiability.reasons.joined(separator: "; ")))
            }
        }
        if let scope = result.scope {
            if !scope.selection.isEmpty { pairs.append(("selection", scope.selection.joined(separator: " "))) }
            pairs.append(("bundledSuites", scope.coverage))
            if scope.shard.count > 1 { pairs.append(("shard", scope.shard.description)) }
        }
        if let p = result.provenance {
            pairs += [
                ("conformVersion", p.kitVersion), ("conformCommit", p.kitCommit), ("suitesDigest", p.suitesDigest),
                ("commandLine", p.commandLine.joined(separator: " ")),
            ]
            if let product = p.product { pairs += [("product", product.name), ("productVersion", product.version)] }
            for v in p.variables { pairs.append(("var." + v.name, v.value)) }
            if !deterministic {
                pairs.append(("startedAt", RunProvenance.timestamp(p.startedAt)))
                if let end = p.finishedAt { pairs.append(("finishedAt", RunProvenance.timestamp(end))) }
            }
        }
        let retries = result.retries
        if retries.count > 0 { pairs += [("retries", "\(retries.count)"), ("retriedSteps", "\(retries.steps)")] }
        for (i, notice) in result.notices.enumerated() { pairs.append(("notice.\(i + 1)", notice.line)) }
        let masker = SecretMasker()
        return pairs.map {
            "      <property name=\"\(Escaping.xml($0.0))\" value=\"\(Escaping.xml(masker.text($0.1)))\"/>\n"
        }.joined()
    }

    /// The step's location, spec, exchange and mismatches, with credentials masked.
    func details(_ step: StepResult, _ masker: SecretMasker) -> String {
        var lines: [String] = [step.location]
        if !step.spec.isEmpty { lines.append("spec: \(step.spec.summary)") }
        if let r = step.request {
            lines.append("\(r.method) \(r.url)" + (step.response.map { " -> \($0.status.code)" } ?? ""))
        }
        if let e = step.error { lines.append(e) }
        for f in step.failures {
            for m in f.mismatches {
                let label =
                    !step.check.hasSeverities
                    ? "" : f.severity == .assumed ? "assumed \(f.decision ?? "") " : "\(f.severity.rawValue) "
                lines.append(
                    "\(label)\(m.path): expected \(m.expected), got \(m.actual)" + (m.note.map { " (\($0))" } ?? ""))
            }
            for finding in f.findings {
                lines.append(
                    "\(finding.heading): \(finding.found) (requires: \(finding.requirement); help: \(finding.help))")
            }
        }
        return masker.text(lines.joined(separator: "\n"))
    }

    func time(_ t: Double) -> String { deterministic ? "0.000" : String(format: "%.3f", t) }
}
