import ConformCore

/// A step whose verdict changed between the repetitions of a run: its verdict in each, in order.
public struct FlakyStep: Sendable, Hashable {
    public var suiteID: String
    public var flow: String
    /// 0-based, as in ``StepResult``.
    public var index: Int
    public var name: String
    /// `file:line:column` of the step.
    public var location: String
    public var verdicts: [Verdict]

    public init(suiteID: String, flow: String, index: Int, name: String, location: String, verdicts: [Verdict]) {
        self.suiteID = suiteID
        self.flow = flow
        self.index = index
        self.name = name
        self.location = location
        self.verdicts = verdicts
    }

    /// `suite › flow › 3. name`.
    public var title: String { "\(suiteID) › \(flow) › \(index + 1). \(name)" }

    /// `pass 3, fail 2`: how often each verdict came, worst last.
    public var tally: String {
        Dictionary(grouping: verdicts, by: { $0 }).sorted { $0.key < $1.key }.map {
            "\($0.key.rawValue) \($0.value.count)"
        }
        .joined(separator: ", ")
    }
}
