/// The client-side rules of a protocol's flow, in the protocol's own words: what `conform check` judges a client's
/// traffic against. The flow checker (`ConformFlowCheck`) knows how to judge each ``FlowRule/Kind``; a profile
/// declares which of them its flow has, with its ids, its steps and its wording (``ProtocolProfile/flowRules``).
extension ProtocolProfile {
    /// A client-side rule of the protocol's flow: one of the checker's judgments, named and worded by the profile.
    public struct FlowRule: Sendable, Hashable, CustomStringConvertible {
        /// Stable id used in reports and configuration (`check --disable`), e.g. `registration-first`.
        public var id: String
        /// Which of the checker's judgments the rule is.
        public var kind: Kind
        /// The flow step the rule certifies, named as the suites name it.
        public var step: FlowStep
        /// The line of the certified flow the rule rests on, quoted.
        public var seed: String
        /// One sentence saying what the rule requires.
        public var summary: String
        /// How to fix a violation.
        public var help: String
        /// What a trace must hold for the rule to judge anything ("user call (M4–M10, M14)"): without it the rule is
        /// not exercised, which is never a pass.
        public var exercisedBy: String

        /// A rule of kind `kind`, or, when no kind is given, of the kind its id names.
        public init(
            id: String, kind: Kind? = nil, step: FlowStep, seed: String, summary: String, help: String,
            exercisedBy: String = ""
        ) {
            self.id = id
            self.kind = kind ?? Kind(rawValue: id)
            self.step = step
            self.seed = seed
            self.summary = summary
            self.help = help
            self.exercisedBy = exercisedBy
        }

        /// Why the rule has no verdict on a trace that never exercised it.
        public var notExercisedReason: String {
            "not exercised: the traffic holds no " + (exercisedBy.isEmpty ? "record this rule judges" : exercisedBy)
        }

        public var description: String { id }
    }

    /// A step of the protocol's flow, named as its suites name theirs (`step:` in `suites/*.yaml`, e.g. `3-logout`).
    public struct FlowStep: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The suites' step name; steps are ordered by it.
        public var name: String

        public init(_ name: String) { self.name = name }

        public var description: String { name }

        public static func < (a: FlowStep, b: FlowStep) -> Bool { a.name < b.name }
    }
}

extension ProtocolProfile.FlowRule {
    /// One judgment the flow checker knows how to make on a client's traffic, with the endpoints' roles
    /// (``ProtocolProfile/Endpoint/Role``) and traits telling it which call is which; an open set.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public var description: String { rawValue }

        /// No call that needs a registration starts before the registration that issued its id completed.
        public static let registrationFirst = Kind(rawValue: "registration-first")
        /// A personalized installation moves to another person only with force or after a depersonalize.
        public static let userSwitch = Kind(rawValue: "user-switch")
        /// An application restricted to backend personal data sends none from the app (nor reads it, when access
        /// is restricted too).
        public static let restrictedPersonalData = Kind(rawValue: "restricted-personal-data")
        /// The calls that need a user token carry a valid one for the user and the application; no other app call
        /// carries one.
        public static let jwtSubject = Kind(rawValue: "jwt-subject")
        /// Backend calls authorize with an API key, never an application code.
        public static let backendCredentials = Kind(rawValue: "backend-credentials")
        /// Every app call after the registration names its installation.
        public static let registrationHeader = Kind(rawValue: "registration-header")
        /// A personalize names a non-empty identity.
        public static let personalizeIdentity = Kind(rawValue: "personalize-identity")
        /// After a login event the installation is personalized to the user before the user's data is touched.
        public static let loginPersonalize = Kind(rawValue: "login-personalize")
        /// After a logout event the installation is depersonalized before anything else touches the user.
        public static let logoutDepersonalize = Kind(rawValue: "logout-depersonalize")
        /// After a session-expiry event the installation is depersonalized before the next login.
        public static let sessionExpiryDepersonalize = Kind(rawValue: "session-expiry-depersonalize")
        /// After an app-update event the new registration is personalized to the user with force.
        public static let appUpdatePersonalize = Kind(rawValue: "app-update-personalize")
        /// A push to a person's primary installations only goes to a person who has one.
        public static let primaryPush = Kind(rawValue: "primary-push")
        /// A depersonalize the server could not take is sent again before anything else touches the user.
        public static let depersonalizeRetry = Kind(rawValue: "depersonalize-retry")
        /// A personalize the server could not take is sent again, or reported by the app, before the user is used.
        public static let personalizeRetry = Kind(rawValue: "personalize-retry")
        /// An id the server no longer knows is not used again: the app registers anew.
        public static let registrationRecovery = Kind(rawValue: "registration-recovery")
        /// An app update is not a new installation: no second registration of an installation's push token.
        public static let updateKeepsRegistration = Kind(rawValue: "update-keeps-registration")
        /// Message sync after a depersonalize still lists the messages the installation holds.
        public static let syncKeepsDelivered = Kind(rawValue: "sync-keeps-delivered")
    }
}
