/// What a protocol tells the replayer and the differential: where an exchange names a person (so a replay can give
/// each run persons of its own), and which values of its answers differ on every run whatever the implementation.
extension ProtocolProfile {
    /// What kind of value names a person, which says how a fresh one is made that the protocol still accepts.
    public enum IdentityKind: Sendable, Hashable {
        /// An opaque id chosen by the customer (`externalUserId`): any text.
        case opaque
        /// An email address: `local@domain`.
        case email
        /// A phone number: digits, perhaps after a `+`.
        case phone
        /// Told by the value itself: an email when it holds `@`, a phone when it is digits, else opaque (a lookup's
        /// `identifier`, whose kind another parameter names).
        case byShape
    }

    /// One place in a JSON body that holds a person's identity.
    public struct IdentityField: Sendable, Hashable {
        /// Where, as a pattern (`$..externalUserId`, `$..emails[*].address`).
        public var path: JSONPathPattern
        public var kind: IdentityKind

        public init(_ path: JSONPathPattern, kind: IdentityKind) {
            self.path = path
            self.kind = kind
        }
    }

    /// A value of the protocol's answers that differs on every run (a send time), with why.
    public struct VolatileValue: Sendable, Hashable {
        public var path: JSONPathPattern
        public var reason: String

        public init(_ path: JSONPathPattern, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// Where a protocol's exchanges name persons, and the values of its answers that change on every run.
    public struct ReplayKeys: Sendable, Hashable {
        /// JSON members that hold identities, in requests and answers.
        public var identityFields: [IdentityField]
        /// Query parameters that hold identities, by name.
        public var identityParameters: [String: IdentityKind]
        /// Values that differ between two runs of any correct implementation: the documented noise `diff` ignores
        /// unless told not to.
        public var volatileValues: [VolatileValue]

        public init(
            identityFields: [IdentityField] = [], identityParameters: [String: IdentityKind] = [:],
            volatileValues: [VolatileValue] = []
        ) {
            self.identityFields = identityFields
            self.identityParameters = identityParameters
            self.volatileValues = volatileValues
        }

        /// A protocol whose exchanges name no person and whose answers hold nothing volatile.
        public static let none = ReplayKeys()

        /// The kind of identity at `path`, or `nil` when no identity field is there.
        public func identityKind(at path: JSONPath) -> IdentityKind? {
            identityFields.first { $0.path.matches(path) }?.kind
        }
    }
}
