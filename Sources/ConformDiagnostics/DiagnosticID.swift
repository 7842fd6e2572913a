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
