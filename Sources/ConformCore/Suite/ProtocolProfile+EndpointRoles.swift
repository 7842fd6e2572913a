/// What a call to an endpoint does in the protocol's flow: the flow checker tells a registration from a personalize
/// or a push by these roles, never by an endpoint's id.
extension ProtocolProfile.Endpoint {
    /// One thing a call does in the flow; an open set. An endpoint may have several (a backend personalize is
    /// ``fromBackend``, ``pushRegistration`` and ``personalize``).
    public struct Role: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public var description: String { rawValue }

        /// A call the app sends (Mobile Messaging's mobile API).
        public static let fromApp = Role(rawValue: "from-app")
        /// A call the customer's backend sends with its API key (Mobile Messaging's People and Push APIs).
        public static let fromBackend = Role(rawValue: "from-backend")
        /// Registers an installation: its answer names the new installation's id (the profile's
        /// ``ProtocolProfile/FlowKeys/answerMember``).
        public static let registration = Role(rawValue: "registration")
        /// A call the app may send without naming its installation, even once registered (a base-URL lookup).
        public static let withoutRegistration = Role(rawValue: "without-registration")
        /// Updates an installation; its request may set the primary flag (`isPrimary`).
        public static let updateInstallation = Role(rawValue: "update-installation")
        /// Reads an installation; its answer shows the primary flag (`isPrimary`).
        public static let readInstallation = Role(rawValue: "read-installation")
        /// Deletes an installation.
        public static let deleteInstallation = Role(rawValue: "delete-installation")
        /// Links an installation to a person, by the identity its body names; its query may force a depersonalize
        /// of another person first (`forceDepersonalize`) and make the installation primary (`setDeviceAsPrimary`).
        public static let personalize = Role(rawValue: "personalize")
        /// A personalize that takes no query, so it never forces nor sets the primary flag (a repersonalize).
        public static let repersonalize = Role(rawValue: "repersonalize")
        /// Unlinks an installation from its person.
        public static let depersonalize = Role(rawValue: "depersonalize")
        /// Reads the installation's user, with the user's installations (`instances`).
        public static let readUser = Role(rawValue: "read-user")
        /// Updates the installation's user (its `externalUserId`, phones and emails).
        public static let updateUser = Role(rawValue: "update-user")
        /// Reads a person with the person's installations, from the backend (`contactInformation.push`).
        public static let readPerson = Role(rawValue: "read-person")
        /// Synchronizes the installation's messages: lists those it holds (`mIDs`) and is handed the others.
        public static let messageSync = Role(rawValue: "message-sync")
        /// A backend call on one of a person's installations, which names its application (`AppCode`) beside the
        /// API key.
        public static let pushRegistration = Role(rawValue: "push-registration")
        /// Sends one push, the body being the message (`to`, `targetOnlyPrimaryDevices`).
        public static let push = Role(rawValue: "push")
        /// Sends pushes, the body's `messages` each with its `to` and `targetOnlyPrimaryDevices`.
        public static let pushBatch = Role(rawValue: "push-batch")
        /// Sends pushes, the body's `messages` each with its `destinations`.
        public static let pushToDestinations = Role(rawValue: "push-to-destinations")
    }
}
