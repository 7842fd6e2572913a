/// Why a server could not be created or started.
public struct HTTPServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; an open set.
    public struct Kind: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let invalidHost = Kind(rawValue: "invalid host")
        public static let invalidLimits = Kind(rawValue: "invalid limits")
        public static let cannotListen = Kind(rawValue: "cannot listen")
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
