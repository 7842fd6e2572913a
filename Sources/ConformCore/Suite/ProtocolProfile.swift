/// What a protocol adds to the engine: the base URLs a target supplies (names every suite may use without
/// declaring them), the template functions its suites call beyond the built-in generators, the application modes a
/// suite may need, and the envelope its servers refuse requests in.
///
/// The engine (loader, runner, mock, servers, traffic) knows no protocol; a profile module declares one
/// (`ConformMobileMessaging`'s `ProtocolProfile.mobileMessaging`) and the command line or a test passes it in.
public struct ProtocolProfile: Sendable {
    /// One base URL a target supplies, e.g. the mobile API's.
    public struct Base: Sendable, Hashable {
        /// The variable suites read it by (`{{mobile}}/mobile/1/appinstance`).
        public var name: String
        /// Its URL on the embedded reference, which routes on the path alone, so the host is never resolved.
        public var referenceURL: String
        /// The path prefixes of its endpoints (`/mobile/`); none for the base that serves every other path.
        public var pathPrefixes: [String]

        public init(name: String, referenceURL: String, pathPrefixes: [String] = []) {
            self.name = name
            self.referenceURL = referenceURL
            self.pathPrefixes = pathPrefixes
        }
    }

    /// The protocol's name, for messages.
    public var name: String
    /// The base URLs a target supplies, in the order the protocol lists them.
    public var bases: [Base]
    /// Functions templates may call beyond the built-in generators, by name.
    public var functions: [String: TemplateFunction]
    /// The body of every refusal a server of this protocol answers with (the reference, a mock, a recording proxy).
    public var errorEnvelope: ErrorEnvelope
    /// The application modes a suite may name as its `profile:` (the kind of application it needs, e.g. one that
    /// authorizes user data with JWTs), the first being the one of a suite that names none.
    public var applicationModes: [String]
    /// Which endpoint a request is, for the flow checker.
    public var endpoints: EndpointCatalogue
    /// Where its exchanges hold credentials and personal data, for redaction and the secret scan.
    public var redaction: RedactionKeys
    /// Where its exchanges name persons and which of its answers' values change on every run, for replays.
    public var replay: ReplayKeys
    /// Which device an exchange belongs to, for recordings, HAR import, captures and replays.
    public var flows: FlowKeys
    /// What `conform explore` may send to an implementation and how it reads the answers.
    public var exploration: Exploration
    /// The client-side rules of the flow, in report order, worded as the protocol words them: what `conform check`
    /// judges (none: a check judges nothing, and cannot judge).
    public var flowRules: [FlowRule]

    public init(
        name: String, bases: [Base], functions: [String: TemplateFunction] = [:],
        applicationModes: [String] = [ProtocolProfile.anyApplication], errorEnvelope: ErrorEnvelope = .neutral,
        endpoints: EndpointCatalogue = .none, redaction: RedactionKeys = .none, replay: ReplayKeys = .none,
        flows: FlowKeys = .none, exploration: Exploration = .none, flowRules: [FlowRule] = []
    ) {
        self.name = name
        self.bases = bases
        self.functions = functions
        self.applicationModes = applicationModes.isEmpty ? [Self.anyApplication] : applicationModes
        self.errorEnvelope = errorEnvelope
        self.endpoints = endpoints
        self.redaction = redaction
        self.replay = replay
        self.flows = flows
        self.exploration = exploration
        self.flowRules = flowRules
    }

    /// The mode of a protocol that has no modes of its own: any application of the target will do.
    public static let anyApplication = "all"

    /// A profile with no bases, no functions and one application mode: suites declare every name they use.
    public static let none = ProtocolProfile(name: "none", bases: [])

    /// The mode of a suite that names none.
    public var defaultApplicationMode: String { applicationModes[0] }

    /// The names of the bases, which every suite may use without declaring them.
    public var baseNames: Set<String> { Set(bases.map(\.name)) }

    /// Every base at `url`: one origin serves the whole protocol (an `http` target, or `""` for an adapter that
    /// gets origin-form URLs).
    public func baseURLs(all url: String) -> [String: String] {
        Dictionary(bases.map { ($0.name, url) }) { first, _ in first }
    }

    /// Every base at its URL on the embedded reference.
    public var referenceBaseURLs: [String: String] {
        Dictionary(bases.map { ($0.name, $0.referenceURL) }) { first, _ in first }
    }
}
