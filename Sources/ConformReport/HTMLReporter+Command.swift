/// The page's words for each command: what its table is called, what its verdicts are called in the counts, the
/// table's columns and the legend, so that a client check speaks of rules and a differential of exchanges.
extension HTMLReporter {
    /// The title of the page's table of groups.
    static func matrixTitle(_ result: RunResult) -> String {
        switch result.command {
        case .run, .mock, .explore: "Verdicts by flow step"
        case .check: "Rules by flow step"
        case .replay, .diff: "Exchanges by \(result.groupNoun.one)"
        case .scan: "Findings by file"
        }
    }

    /// The table's caption.
    static func matrixCaption(_ result: RunResult) -> String {
        switch result.command {
        case .run, .mock, .explore:
            "Steps of each suite by verdict, in the order of the flow. Each number links to the first such step; each suite links to its exchanges."
        case .check:
            "Each rule of the flow with the violations the traffic holds. Each rule links to the record that breaks it, or to what the traffic lacked."
        case .replay, .diff:
            "The \(result.groupNoun.many) with an exchange that differs or could not be judged, and their exchanges by verdict. Each number links to the first such exchange."
        case .scan: "Each file by verdict. Each number links to the first such finding."
        }
    }

    /// The words a client check and a differential (replay, diff) have for a verdict: its column's heading, what
    /// the header's counts call its steps, and its badge; `nil` where the command speaks of steps as a run does.
    private static func words(_ verdict: Verdict, _ command: RunResult.Command) -> (
        column: String, count: String, badge: String
    )? {
        switch (command, verdict) {
        case (.check, .pass): ("Held", "held", "HELD")
        case (.check, .fail): ("Violated", "violated", "VIOLATED")
        case (.check, .error): ("Cannot judge", "could not be judged", "CANNOT JUDGE")
        case (.replay, .pass), (.diff, .pass): ("Same", "the same", "SAME")
        case (.replay, .fail), (.diff, .fail): ("Differ", "differ", "DIFFERS")
        case (.replay, .skipped), (.diff, .skipped): ("Not judged", "not judged", "NOT JUDGED")
        case (.replay, .error), (.diff, .error): ("No answer", "without an answer", "NO ANSWER")
        default: nil
        }
    }

    /// What a verdict's column is headed in the command's table.
    static func columnLabel(_ verdict: Verdict, _ command: RunResult.Command) -> String {
        words(verdict, command)?.column ?? columnLabel(verdict)
    }

    /// What the header's counts call the steps of a verdict.
    static func countLabel(_ verdict: Verdict, _ command: RunResult.Command) -> String {
        words(verdict, command)?.count ?? countLabel(verdict)
    }

    /// What a verdict means for the command's steps, for the legend.
    static func meaning(_ verdict: Verdict, _ command: RunResult.Command) -> String {
        switch (command, verdict) {
        case (.check, .pass): "the traffic exercised the rule and never broke it;"
        case (.check, .fail): "the traffic broke the rule (each violation at the record that breaks it);"
        case (.check, .error): "what the trace holds cannot be judged (a body or response missing, records unreadable)."
        case (.replay, .pass): "the implementation answered as recorded (noise aside);"
        case (.replay, .fail): "the answer differs from the recorded one;"
        case (.replay, .skipped), (.diff, .skipped): "the recording cannot judge the exchange;"
        case (.replay, .error): "no answer came from the implementation."
        case (.diff, .pass): "the two implementations answered alike (noise aside);"
        case (.diff, .fail): "the two answers differ;"
        case (.diff, .error): "an implementation gave no answer."
        case (.mock, .pass): "the client's request followed the suite's step;"
        case (.mock, .fail): "the client's request did not follow the suite;"
        case (.mock, .error): "the session could not judge the request."
        case (.scan, .pass): "no credential found;"
        case (.scan, .fail): "a credential that was not redacted;"
        case (.scan, .error): "the file could not be read."
        default: meaning(verdict)
        }
    }

    /// The words of a verdict badge in the command's table and sections.
    static func label(_ verdict: Verdict, _ command: RunResult.Command) -> String {
        words(verdict, command)?.badge ?? label(verdict)
    }
}
