/// Which kind of problem a ``Diagnostic`` reports: a stable dotted name, `area.kind`.
///
/// Each module declares the ids of the diagnostics it emits beside its code, as static constants in an extension
/// (`DiagnosticID+YAML.swift`, `DiagnosticID+Traffic.swift`, …) with a list of them; the catalog of every id is
/// gathered from those lists by a test (`DiagnosticCatalogTests`), which also checks that every id declared in
/// `Sources/` is in it once.
public struct DiagnosticID: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    /// An id named `area.kind` (lower-case letters and `-`), declared once, in the module that emits it.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
}

/// One kind of problem said in words: its id, what is wrong and how to fix it, before a place is known.
///
/// A module declares builders of the messages it emits beside its ids (`DiagnosticMessage.undeclaredName(…)`), so
/// the words of one kind of problem are written once; a ``Diagnostic`` is made from one at its place.
public struct DiagnosticMessage: Sendable, Hashable {
    public var id: DiagnosticID
    public var message: String
    public var help: String?

    public init(_ id: DiagnosticID, _ message: String, help: String? = nil) {
        self.id = id
        self.message = message
        self.help = help
    }
}

extension Diagnostic {
    /// The problem `said` at `mark` in `file`.
    public init(
        _ said: DiagnosticMessage, _ severity: Severity = .error, file: String? = nil, mark: SourceMark? = nil
    ) {
        self.init(said.id, severity, file: file, mark: mark, message: said.message, help: said.help)
    }
}
