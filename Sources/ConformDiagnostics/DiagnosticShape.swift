/// What every problem for a person says, whoever reports it: where (a file and a 1-based mark, when known), which
/// kind it is, what is wrong and how to fix it. ``Diagnostic`` has this shape, and so does a step's reason for not
/// passing (`StepError` in `ConformReport`), so that both name their place the same way.
public protocol DiagnosticShape {
    /// The file the problem is in, when it is in one.
    var file: String? { get }
    /// The 1-based line and column in ``file``, when known.
    var mark: SourceMark? { get }
    /// The kind, as programs read it (a ``DiagnosticID``'s name, a step error's kind).
    var kindName: String { get }
    /// What is wrong, without where.
    var reason: String { get }
    /// One line telling how to fix it.
    var help: String? { get }
}

extension DiagnosticShape {
    /// `file:line:col`, `file`, `line:col`, or `nil`: where the problem is, as every message names it.
    public var place: String? {
        switch (file, mark) {
        case (let file?, let mark?): "\(file):\(mark.line):\(mark.column)"
        case (let file?, nil): file
        case (nil, let mark?): "\(mark.line):\(mark.column)"
        case (nil, nil): nil
        }
    }
}

extension Diagnostic: DiagnosticShape {
    public var kindName: String { id.rawValue }
    public var reason: String { message }
}
