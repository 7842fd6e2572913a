import ConformCore
import Foundation

/// How the page shows a verdict: badges, symbols, labels, meanings and classes, in each command's words.
extension HTMLReporter {
    /// The verdict of the table's total row: the run's own, in the command's words ("DOES NOT CONFORM",
    /// "8 violations"), short enough for its column (the headline above says what the command was).
    func overallBadge(_ result: RunResult) -> String {
        var run = result
        run.verification = nil
        let (verdict, _) = Self.overall(run)
        return
            "<span class=\"badge \(Self.cssClass(verdict))\"><span class=\"symbol\" aria-hidden=\"true\">\(Self.symbol(verdict))</span>&nbsp;\(Escaping.html(result.outcome))</span>"
    }

    /// The run's verdict in the words of a certificate; a verification's in its own.
    static func overall(_ result: RunResult) -> (Verdict, String) {
        let words = Escaping.html(result.headline)
        if let verification = result.verification { return (verification.verdict(of: result), words) }
        return switch result.status {
        case .conforms: (.pass, words)
        case .mismatch: (.fail, words)
        default: (.error, words)
        }
    }

    /// A verdict as colour, symbol and words; linked when `link` is given.
    func badge(_ verdict: Verdict, link: String? = nil) -> String {
        let inner =
            "<span class=\"symbol\" aria-hidden=\"true\">\(Self.symbol(verdict))</span> \(Self.label(verdict, command))"
        if let link {
            return "<a class=\"badge \(Self.cssClass(verdict))\" href=\"\(Escaping.html(link))\">\(inner)</a>"
        }
        return "<span class=\"badge \(Self.cssClass(verdict))\">\(inner)</span>"
    }

    static func symbol(_ verdict: Verdict) -> String {
        switch verdict {
        case .pass: "✔"
        case .fail: "✘"
        case .assumptionNotMet: "~"
        case .skipped: "–"
        case .notExercised: "○"
        case .error: "!"
        }
    }

    static func label(_ verdict: Verdict) -> String {
        switch verdict {
        case .pass: "PASS"
        case .fail: "FAIL"
        case .assumptionNotMet: "ASSUMPTION NOT MET"
        case .skipped: "SKIPPED"
        case .notExercised: "NOT EXERCISED"
        case .error: "ERROR"
        }
    }

    static func columnLabel(_ verdict: Verdict) -> String {
        switch verdict {
        case .pass: "Pass"
        case .fail: "Fail"
        case .assumptionNotMet: "Assumption not met"
        case .skipped: "Skipped"
        case .notExercised: "Not exercised"
        case .error: "Error"
        }
    }

    static func countLabel(_ verdict: Verdict) -> String {
        switch verdict {
        case .pass: "passed"
        case .fail: "failed"
        case .assumptionNotMet: "assumption not met"
        case .skipped: "skipped"
        case .notExercised: "not exercised"
        case .error: "could not run"
        }
    }

    static func meaning(_ verdict: Verdict) -> String {
        switch verdict {
        case .pass: "every check held;"
        case .fail: "a must or should check failed, or no valid response came;"
        case .assumptionNotMet: "only checks resting on a decision failed (the run still conforms);"
        case .skipped: "an earlier step of the same flow did not pass;"
        case .notExercised: "the traffic gave the rule nothing to judge (never a pass);"
        case .error: "the step could not run (unreachable target or unusable suite)."
        }
    }

    static func cssClass(_ verdict: Verdict) -> String {
        switch verdict {
        case .pass: "v-pass"
        case .fail: "v-fail"
        case .assumptionNotMet: "v-assumed"
        case .skipped: "v-skipped"
        case .notExercised: "v-skipped"
        case .error: "v-error"
        }
    }
}
