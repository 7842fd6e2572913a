import ConformCore

/// What a result's steps are grouped by: a suite of a run or mock session, a device flow of a replayed or diffed
/// trace, a flow step of a client check, a file of a secret scan; reports show a group as a section.
public struct ResultGroup: Sendable, Hashable {
    /// What a group is, so that reports name it rightly.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case suite
        /// A device's traffic in a trace (a replay or diff).
        case deviceFlow = "device flow"
        /// A step of the personalization flow that a client check judges rules of.
        case flowStep = "flow step"
        /// A file a secret scan read.
        case file
        /// Requests a mock could not place on any step.
        case unmatched = "unmatched requests"
        /// What a trace could not show (records unread, exchanges without what the checks need).
        case trace
    }

    public var kind: Kind
    public var id: String
    public var title: String
    /// The flow step the group belongs to (`"3.2"`), or empty.
    public var step: String
    public var spec: SpecReference
    /// The suite file, or the trace or file the group's steps come from.
    public var file: String
    /// The suite's content hash; empty for other groups.
    public var contentHash: String
    /// The protocol profile the suite was written for; empty for other groups.
    public var profile: String

    public init(
        kind: Kind, id: String, title: String, step: String = "", spec: SpecReference = SpecReference(),
        file: String, contentHash: String = "", profile: String = ""
    ) {
        self.kind = kind
        self.id = id
        self.title = title
        self.step = step
        self.spec = spec
        self.file = file
        self.contentHash = contentHash
        self.profile = profile
    }

    /// The group of a suite's steps.
    public init(_ suite: Suite) {
        self.init(
            kind: .suite, id: suite.id, title: suite.title, step: suite.step, spec: suite.spec, file: suite.file,
            contentHash: suite.contentHash, profile: suite.profile)
    }
}
