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

    /// Places in JSON bodies (`$..externalUserId`) with what the protocol says of each: an identity's kind, or why
    /// a value differs on every run.
    public struct BodyPlace<Meaning: Sendable & Hashable>: Sendable, Hashable {
        public var path: JSONPathPattern
        public var meaning: Meaning

        public init(_ path: JSONPathPattern, _ meaning: Meaning) {
            self.path = path
            self.meaning = meaning
        }
    }

    /// One place in a JSON body that holds a person's identity, of that kind.
    public typealias IdentityField = BodyPlace<IdentityKind>
    /// A value of the protocol's answers that differs on every run (a send time), with why.
    public typealias VolatileValue = BodyPlace<String>

    /// Where a protocol's exchanges name persons, and the values of its answers that change on every run.
    /// The JSON members whose values an implementation mints (`pushRegId`, `messageId`): a replay learns each
    /// recorded value's live counterpart from the answers and puts it in every later request and expected answer.
    public struct MintedIdentifiers: Sendable, Hashable {
        /// The member names, compared exactly.
        public var keys: Set<String>
        /// Those of ``keys`` that name something lasting (a device): kept mapped for the whole replay. The others
        /// (a message, a bulk) are referred to soon after they appear, so only the most recent are kept.
        public var durable: Set<String>

        public init(keys: Set<String>, durable: Set<String> = []) {
            self.keys = keys
            self.durable = durable
        }

        /// A protocol whose implementations mint nothing a later request carries.
        public static let none = MintedIdentifiers(keys: [])
    }

    public struct ReplayKeys: Sendable, Hashable {
        /// JSON members that hold identities, in requests and answers.
        public var identityFields: [IdentityField]
        /// Query parameters that hold identities, by name.
        public var identityParameters: [String: IdentityKind]
        /// Values that differ between two runs of any correct implementation: the documented noise `diff` ignores
        /// unless told not to.
        public var volatileValues: [VolatileValue]
        /// The identifiers an implementation mints, which a replay maps from the recorded to the live ones.
        public var minted: MintedIdentifiers

        public init(
            identityFields: [IdentityField] = [], identityParameters: [String: IdentityKind] = [:],
            volatileValues: [VolatileValue] = [], minted: MintedIdentifiers = .none
        ) {
            self.identityFields = identityFields
            self.identityParameters = identityParameters
            self.volatileValues = volatileValues
            self.minted = minted
        }

        /// A protocol whose exchanges name no person and whose answers hold nothing volatile.
        public static let none = ReplayKeys()

        /// The kind of identity at `path`, or `nil` when no identity field is there.
        public func identityKind(at path: JSONPath) -> IdentityKind? {
            identityFields.first { $0.path.matches(path) }?.meaning
        }
    }
}
