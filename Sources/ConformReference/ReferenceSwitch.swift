/// A name from an open set that switches a behaviour of the reference (a ``ReferenceFault``, a
/// ``ReferenceVariant``): written and read as the name alone, told by a one-line summary where this build knows it.
public protocol ReferenceSwitch: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible
where RawValue == String {
    init(rawValue: String)
    /// Each name this build knows → one line telling what it switches.
    static var summaries: [String: String] { get }
}

extension ReferenceSwitch {
    public var description: String { rawValue }
    public init(from decoder: Decoder) throws { self.init(rawValue: try String(from: decoder)) }
    public func encode(to encoder: Encoder) throws { try rawValue.encode(to: encoder) }

    /// One line telling what the name switches, or `nil` for a name this build does not know.
    public var summary: String? { Self.summaries[rawValue] }
}
