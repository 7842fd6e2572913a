/// What `conform explore` may do to an implementation of a protocol, as data of the protocol's profile: its
/// operations (each one request in the suite format, with slots for devices, persons and parameters) and how each
/// answer is observed. The explorer's engine knows no endpoint, parameter or member name of its own.
extension ProtocolProfile {
    /// The operations a sequence is drawn from, and the rules that turn an answer into expectations.
    public struct Exploration: Sendable {
        /// Every operation, in the order reports list them.
        public var operations: [ExploreOperation]
        /// What a generated suite declares for each application mode (``ProtocolProfile/applicationModes``).
        public var applications: [String: ExploreApplication]
        /// Where a refusal holds its error code (a JSON path in the suite format).
        public var errorCodePath: String
        /// Error codes a decision makes a MUST: when the reference refuses with one, the target must refuse with it.
        public var mustErrorCodes: Set<String>
        /// Refusals whose status class a decision only assumes, by error code: the decision (`D2`).
        public var assumedRefusals: [String: String]
        /// The decisions that only assume a push stays away from a device (see ``ExplorePushAssumptions``).
        public var pushAssumptions: ExplorePushAssumptions
        /// What every refusal shows, whatever the operation (its media type, its framing), read where the refusal's
        /// status class is a MUST.
        public var refusalObservations: [ExploreObservation]
        public init(
            operations: [ExploreOperation], applications: [String: ExploreApplication], errorCodePath: String,
            mustErrorCodes: Set<String> = [], assumedRefusals: [String: String] = [:],
            pushAssumptions: ExplorePushAssumptions = ExplorePushAssumptions(),
            refusalObservations: [ExploreObservation] = []
        ) {
            self.refusalObservations = refusalObservations
            self.operations = operations
            self.applications = applications
            self.errorCodePath = errorCodePath
            self.mustErrorCodes = mustErrorCodes
            self.assumedRefusals = assumedRefusals
            self.pushAssumptions = pushAssumptions
        }

        /// A protocol that declares nothing to explore.
        public static let none = Exploration(operations: [], applications: [:], errorCodePath: "$")
    }
}

/// Where a push the reference kept away from a device may still reach it on a conforming implementation: the
/// decision that only assumes it stays away, for each case the explorer tells from the reference's state. A case
/// without a decision is a MUST.
public struct ExplorePushAssumptions: Sendable, Hashable {
    /// The push was queued for the device and withdrawn before it was handed out (the device changed person).
    public var withdrawn: String?
    /// A primary-only push, and the device had been primary before (exclusivity of the primary flag).
    public var formerPrimary: String?
    /// A primary-only push to a person without a primary device.
    public var noPrimary: String?
    /// The device's registration was disabled when the push was sent.
    public var disabled: String?
    public init(
        withdrawn: String? = nil, formerPrimary: String? = nil, noPrimary: String? = nil, disabled: String? = nil
    ) {
        self.disabled = disabled
        self.withdrawn = withdrawn
        self.formerPrimary = formerPrimary
        self.noPrimary = noPrimary
    }
}

/// What a generated suite needs for one application mode: its variables (credentials with the embedded reference's
/// public values) and the authorization of user-data calls (`<userAuth>`), where `<sub>` names the person's variable.
public struct ExploreApplication: Sendable, Hashable {
    public var variables: [ExploreVariable]
    public var userAuthorization: String
    public init(variables: [ExploreVariable], userAuthorization: String) {
        self.variables = variables
        self.userAuthorization = userAuthorization
    }
}

/// One variable of a generated suite: its name and its value, a template of the suite format.
public struct ExploreVariable: Sendable, Hashable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// One operation the explorer may send: a request template and what its answer shows.
///
/// The request is written in the suite format (`method`, `url`, `query`, `headers`, `json`), one key per line, with
/// placeholders the explorer fills: `<device>` and `<other>` (installations the sequence registered), `<person>` (an
/// externalUserId), `<personVariable>` (the name of the suite's variable holding it, for a template function such as
/// `jwt sub=<personVariable>`), `<tag>` (the person's tag), `<text>` (a push text, unique in the sequence), `<sub>`
/// (the variable of the person the device was last personalized with), `<userAuth>` (the application mode's
/// authorization of user-data calls) and `<name>` for each of ``parameters``.
public struct ExploreOperation: Sendable, Hashable {
    /// A short name, unique in the profile (`personalize`).
    public var name: String
    /// The endpoint of the protocol's catalogue (`M4`).
    public var endpoint: String
    /// The flow step, endpoint and decisions it exercises, as a suite step's `spec:` line.
    public var spec: String
    /// What its request names: which placeholders the explorer fills.
    public var slots: Set<ExploreSlot>
    /// Parameters with the values the explorer draws from (the first is the simplest, which shrinking prefers).
    public var parameters: [ExploreParameter]
    /// The request in the suite format, one `key: value` line each.
    public var request: String
    /// The JSON path of the id of an installation the answer registers (`$.pushRegId`), when it registers one.
    public var registers: String?
    /// Whether the installation named by `<device>` is gone afterwards: only reads name it again, to see it gone.
    public var retires: Bool
    /// The decision that only assumes the status class of its success (`D5`), when one does.
    public var statusAssumedBy: String?
    /// Whether the call only reads: what it shows may appear late (asynchronous backends), so it is read again
    /// within the delivery window until it matches.
    public var reads: Bool
    /// What its answer shows beyond the status class, when it succeeds.
    public var observations: [ExploreObservation]
    /// What its refusal shows beyond the status class and the error code, where the status class is a MUST (the
    /// envelope of another API version), besides the exploration's ``ProtocolProfile/Exploration/refusalObservations``.
    public var refusalObservations: [ExploreObservation]
    /// Refusals of this call whose status class a decision only assumes, by error code, over the exploration's
    /// ``ProtocolProfile/Exploration/assumedRefusals`` (the same code may rest on another decision here).
    public var assumedRefusals: [String: String]
    /// The application modes it is drawn in (``ProtocolProfile/applicationModes``); empty: every mode. A call with
    /// a credential only one mode has (a JWT signed with the wrong key) is drawn in that mode only.
    public var applications: Set<String>
    /// For a push: the parameter that makes it reach primary devices only when its value is `true` or `1`.
    public var primaryOnly: String?
    /// How likely a random sequence draws it next, relative to the others (1: as likely as an operation without
    /// a weight). Operations that build the state others act on (a login) are weighted up, so that sequences reach
    /// the states where a history matters (two devices of one person, one of them switched) within a budget; a
    /// probe that changes nothing a later step reads (a call with a forged credential) is weighted down (a
    /// quarter), so it is tried often enough and leaves the histories their length. At least 0.01.
    public var weight: Double
    /// What it changes in the abstract model the generator keeps while it draws (see ``ExploreEffect``), when it
    /// changes who owns an installation, a primary flag or a user's data.
    public var effect: ExploreEffect?
    /// What its answer gives the installation `<device>` that later operations on it send back (the message ids a
    /// sync hands out), when it gives something.
    public var captures: ExploreCapture?

    public init(
        name: String, endpoint: String, spec: String, slots: Set<ExploreSlot>, parameters: [ExploreParameter] = [],
        request: String, registers: String? = nil, retires: Bool = false, statusAssumedBy: String? = nil,
        reads: Bool = false, observations: [ExploreObservation] = [], refusalObservations: [ExploreObservation] = [],
        assumedRefusals: [String: String] = [:], applications: Set<String> = [], primaryOnly: String? = nil,
        weight: Double = 1, effect: ExploreEffect? = nil, captures: ExploreCapture? = nil
    ) {
        self.refusalObservations = refusalObservations
        self.assumedRefusals = assumedRefusals
        self.applications = applications
        self.captures = captures
        self.primaryOnly = primaryOnly
        self.effect = effect
        self.weight = max(0.01, weight)
        self.name = name
        self.endpoint = endpoint
        self.spec = spec
        self.slots = slots
        self.parameters = parameters
        self.request = request
        self.registers = registers
        self.retires = retires
        self.statusAssumedBy = statusAssumedBy
        self.reads = reads
        self.observations = observations
    }
}

/// What an operation changes in the abstract model the explorer's generator keeps while it draws a sequence: who
/// owns which installation, which one is primary, which user holds data. The generator uses it only to favour the
/// steps that act on or read what the sequence built (docs/explore.md, "How the generator chooses"); what is right
/// is still decided by the reference. A parameter counts as set when its value is `true` or `1`.
public enum ExploreEffect: Sendable, Hashable {
    /// `<device>` joins `<person>`. `force` names the parameter that lets a device of another person switch (without
    /// it, the device stays where it is), `primary` the one that makes it its person's only primary device.
    case personalizes(force: String?, primary: String?)
    /// The installation in the slot (`.device`, or `.other` when it shares the caller's person) leaves its person.
    case depersonalizes(ExploreSlot)
    /// The installation in the slot (`.other` only when it shares the caller's person) takes the parameter's value
    /// as its primary flag; setting it clears the flag of its person's other devices.
    case setsPrimary(ExploreSlot, parameter: String)
    /// The user of `<device>` gets data of its own (attributes).
    case setsUserData
    /// The messages whose captured ids the parameter sends are reported delivered on `<device>`: no later sync of
    /// it hands them out again (its other devices keep their copies).
    case reportsDelivered(parameter: String)
}

/// A value an operation's answer gives its installation, for later operations on the same installation to send
/// back: a capture of the suite format (docs/suite-format.md). A path with a wildcard captures the list of every
/// match (`$.payloads[*]['gcm.notification.messageId']`, the id of each message a sync hands out), possibly empty;
/// one without, a single value (`$.baseUrl`, the base URL M12 answers). A parameter that names the capture (``ExploreParameter/captured``) draws one of them: the explorer never
/// invents a value, and offers the operation only once the installation has captured one the generator's model
/// expects to hold something.
public struct ExploreCapture: Sendable, Hashable {
    /// What is captured (`received`): parameters name it, and the suite's variables are numbered from it
    /// (`received1`, `received2`…).
    public var name: String
    /// The JSON path over the answer.
    public var path: String
    public init(_ name: String, path: String) {
        self.name = name
        self.path = path
    }
}

/// A placeholder an operation's request uses.
public enum ExploreSlot: String, Sendable, Hashable, CaseIterable {
    /// `<device>`: a registered installation (the caller, for mobile calls).
    case device
    /// `<other>`: a second registered installation (the one a call acts on for another device).
    case other
    /// `<person>` and `<tag>`: one of the sequence's persons.
    case person
    /// `<text>`: a push text unique in the sequence.
    case text
}

/// A parameter of an operation and the values it takes (query booleans, the flag a PATCH sets), or the values
/// an earlier operation captured on the same installation.
public struct ExploreParameter: Sendable, Hashable {
    public var name: String
    /// The literal values, the simplest first; empty for a captured parameter.
    public var values: [String]
    /// The capture (``ExploreCapture/name``) whose values it sends: `<name>` is then the name of the suite's
    /// variable holding one of the installation's earlier captures (the request writes `"{{ <name> }}"`); a step's
    /// choice is which one, 0 the newest.
    public var captured: String?
    public init(_ name: String, _ values: [String]) {
        self.name = name
        self.values = values
        self.captured = nil
    }

    /// A parameter that sends back what `capture` captured earlier on the same installation.
    public init(_ name: String, captured capture: String) {
        self.name = name
        self.values = []
        self.captured = capture
    }
}

/// Whether a fact must hold or rests on a decision that only assumes it.
public enum ExploreRule: Sendable, Hashable {
    case must
    /// Assumed by the decision (`D6`): a difference is an assumption not met, never a failure.
    case assumed(String)
}

/// What an answer shows, read the same way on the reference and on the target.
public enum ExploreObservation: Sendable, Hashable {
    /// The value at a JSON path (`$.externalUserId`): ids and names are compared as the logical device or person
    /// they stand for; `null`, an empty string and absence are one value. A step `[0]` (`$.bulks[0].status`) reads
    /// the reference's first element of a list; the target's list must hold an element with the same value.
    case value(String, ExploreRule)
    /// A boolean at a JSON path (`$.isPrimary`), `false` being also `null` or absent: set under one rule, clear
    /// under another (setting a primary device is a MUST, that it clears the others only assumed).
    case flag(String, whenSet: ExploreRule, whenClear: ExploreRule)
    /// A list of objects (`$.instances`), each named by the member `key` (a device id), the ones the reference
    /// lists present under `rule`, with a boolean `flag` read as ``flag(_:whenSet:whenClear:)`` does.
    case members(String, key: String, rule: ExploreRule, flag: String, whenSet: ExploreRule, whenClear: ExploreRule)
    /// A header of the answer that, when it is sent, must match `pattern` (a regular expression): where the
    /// reference sends it matching, the target must send it matching; where the reference leaves it out, the target
    /// may too (`Content-Type` of a refusal, a `New-Base-URL` that must be absolute).
    case header(String, pattern: String, ExploreRule)
    /// The push texts a list holds (`$.payloads`, each text at `textKey`): the ones the reference shows must all
    /// arrive (within the delivery window), the sequence's other texts must not.
    case texts(String, textKey: String, ExploreRule)
}
