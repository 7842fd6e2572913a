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

    /// Writes the document to `sink` suite by suite, so no more than one suite's text is held at a time.
    public func write(_ result: RunResult, to sink: any TextSink) {
        let masker = SecretMasker(learningFrom: result)
        let counts = result.counts
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
            out += "    </properties>\n"
            for step in s {
                out +=
                    "    <testcase classname=\"\(Escaping.xml(suite.group.id)).\(Escaping.xml(step.flow))\" name=\"\(step.index + 1). \(Escaping.xml(step.name))\" time=\"\(time(step.duration))\""
                switch step.verdict {
                case .pass:
                    out += "/>\n"
                case .assumptionNotMet:
                    out +=
                        ">\n      <system-out>\(Escaping.xml("assumption not met\n" + details(step, masker)))</system-out>\n    </testcase>\n"
                case .skipped, .notExercised:
                    // A rule the traffic never exercised is skipped with its reason: JUnit has no verdict between.
                    let message = step.error ?? step.verdict.rawValue
                    out +=
                        ">\n      <skipped message=\"\(Escaping.xml(masker.text(message)))\">\(Escaping.xml(step.location))</skipped>\n    </testcase>\n"
                case .fail:
                    let first = masker.text(
                        step.failures.first?.mismatches.first.map {
                            "\($0.path): expected \($0.expected), got \($0.actual)"
                        } ?? step.error ?? "failed")
                    let type =
                        step.check.hasSeverities
                        ? step.failures.map(\.severity).max()?.rawValue ?? "exchange" : step.check.rawValue
                    out +=
                        ">\n      <failure message=\"\(Escaping.xml(first))\" type=\"\(Escaping.xml(type))\">\(Escaping.xml(details(step, masker)))</failure>\n    </testcase>\n"
                case .error:
                    out +=
                        ">\n      <error message=\"\(Escaping.xml(masker.text(step.error ?? "could not run")))\" type=\"error\">\(Escaping.xml(details(step, masker)))</error>\n    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
            sink.write(out)
        }
        sink.write("</testsuites>\n")
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
        }
        return masker.text(lines.joined(separator: "\n"))
    }

    func time(_ t: Double) -> String { deterministic ? "0.000" : String(format: "%.3f", t) }
}
