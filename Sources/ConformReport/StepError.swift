import ConformDiagnostics

/// Why a step has no verdict of its own, or what more its verdict needs said: one part of ``StepResult/errors``.
///
/// The message is the text reports show, as it always was; the kind and the fields are the same facts as data,
/// for programs (an SDK's own tests, a CI gate) that act on why a step did not pass without parsing the text.
///
/// It has a ``Diagnostic``'s shape (``DiagnosticShape``): where in a suite file, which kind, what is wrong, how to
/// fix it; a problem at a place is made with ``init(_:at:_:reason:help:fields:)``, which writes the message the one
/// way (`file:line:col: reason; help`), so no caller pastes a location into text.
public struct StepError: Sendable, Hashable, CustomStringConvertible, DiagnosticShape {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// An earlier step of the flow did not pass (`fields["blockedBy"]`).
        case skipped
        /// `--fail-fast` stopped the run first (`fields["reason"]`).
        case notRun
        /// The suite could not be set up, e.g. a variable whose default does not render (`fields["cause"]`).
        case setup
        /// A wait's event did not come while the suite was stuck (`fields["event"]`, `fields["window"]`).
        case eventStalled
        /// A wait's event will not come: the flows that could emit it finished (`fields["event"]`).
        case eventWillNotCome
        /// An `eventually` window that does not render to a duration (`fields["window"]`).
        case badWindow
        /// The request got no response (`fields["cause"]`).
        case noResponse
        /// A gateway in front of the implementation answered in its place (a 502/503/504 page that is not JSON,
        /// `fields["cause"]`): nothing was learnt about the implementation.
        case gatewayUnavailable
        /// The request was not sent: its URL is outside the target's origins and the allowed hosts
        /// (`fields["url"]`, `fields["origin"]`, `fields["allowed"]`).
        case outsideTarget
        /// The implementation refused most of the run's calls (401/403) while the suites sent the profile's public
        /// default credentials to it: the run is about the credentials, not the implementation
        /// (`fields["status"]`, `fields["variables"]`).
        case credentialsRefused
        /// An `eventually` step ran out of attempts (`fields["attempts"]`, `fields["window"]`).
        case stillFailing
        /// An `until` control never arrived (`fields["attempts"]`, `fields["window"]`).
        case controlMissing
        /// Mock sessions: no request reached this step, or a request matched no step.
        case notPlayed, unmatched
        /// Replays and diffs: the exchange cannot be judged, or could not be replayed.
        case cannotJudge, replay
        /// A flow rule the checked traffic gave nothing to judge (`fields["rule"]`).
        case notExercised
        /// A note attached to a judged step (client checks).
        case note
        /// Where a client-check rule that held was judged (`fields["rule"]`, `fields["first"]`, `fields["count"]`):
        /// shown with `--verbose` and in report files, never a reason the step did not pass.
        case judgedAt
        /// Text read back from a JSON report, or given by a caller without a kind.
        case text
    }

    public var kind: Kind
    /// The text reports show.
    public var message: String
    /// What is wrong, without where (the message itself for a step error that names no place).
    public var reason: String
    /// How to fix it, when the step error says.
    public var help: String?
    /// The facts behind the message, by name (see each ``Kind``).
    public var fields: [String: String]
    /// Where the problem is in a suite file, when it is there rather than at the step.
    public var file: String?
    public var mark: SourceMark?

    public init(
        _ kind: Kind, _ message: String, fields: [String: String] = [:], file: String? = nil, mark: SourceMark? = nil
    ) {
        self.kind = kind
        self.message = message
        self.reason = message
        self.fields = fields
        self.file = file
        self.mark = mark
    }

    /// A problem at `mark` in `file` (a suite's): its message is `file:line:col: reason; help`.
    public init(
        _ kind: Kind, at file: String, _ mark: SourceMark, reason: String, help: String? = nil,
        fields: [String: String] = [:]
    ) {
        self.init(kind, reason, fields: fields, file: file, mark: mark)
        self.help = help
        self.message = [place.map { "\($0): \(reason)" } ?? reason, help].compactMap { $0 }.joined(
            separator: Self.separator)
    }

    public var kindName: String { kind.rawValue }

    public var description: String { message }

    /// How the parts of one step read as one line.
    static let separator = "; "
}
