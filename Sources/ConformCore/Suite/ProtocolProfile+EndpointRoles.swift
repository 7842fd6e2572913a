/// What a call to an endpoint does in the protocol's flow: the flow checker tells a registration from a personalize
/// or a push by these roles, never by an endpoint's id.
///
/// Each is a ``ProtocolProfile/Trait``: an endpoint may have several (a backend personalize is ``fromBackend``,
/// ``pushRegistration`` and ``personalize``).
extension ProtocolProfile.Trait {
    /// A call the app sends (Mobile Messaging's mobile API).
    public static let fromApp = Self(rawValue: "from-app")
    /// A call the customer's backend sends with its API key (Mobile Messaging's People and Push APIs).
    public static let fromBackend = Self(rawValue: "from-backend")
    /// Registers an installation: its answer names the new installation's id (the profile's
    /// ``ProtocolProfile/FlowKeys/answerMember``).
    public static let registration = Self(rawValue: "registration")
    /// A call the app may send without naming its installation, even once registered (a base-URL lookup).
    public static let withoutRegistration = Self(rawValue: "without-registration")
    /// Updates an installation; its request may set the primary flag (`isPrimary`).
    public static let updateInstallation = Self(rawValue: "update-installation")
    /// Reads an installation; its answer shows the primary flag (`isPrimary`).
    public static let readInstallation = Self(rawValue: "read-installation")
    /// Deletes an installation.
    public static let deleteInstallation = Self(rawValue: "delete-installation")
    /// Links an installation to a person, by the identity its body names; its query may force a depersonalize
    /// of another person first (`forceDepersonalize`) and make the installation primary (`setDeviceAsPrimary`).
    public static let personalize = Self(rawValue: "personalize")
    /// A personalize that takes no query, so it never forces nor sets the primary flag (a repersonalize).
    public static let repersonalize = Self(rawValue: "repersonalize")
    /// Unlinks an installation from its person.
    public static let depersonalize = Self(rawValue: "depersonalize")
    /// Reads the installation's user, with the user's installations (`instances`).
    public static let readUser = Self(rawValue: "read-user")
    /// Updates the installation's user (its `externalUserId`, phones and emails).
    public static let updateUser = Self(rawValue: "update-user")
    /// Reads a person with the person's installations, from the backend (`contactInformation.push`).
    public static let readPerson = Self(rawValue: "read-person")
    /// Synchronizes the installation's messages: lists those it holds (`mIDs`) and is handed the others.
    public static let messageSync = Self(rawValue: "message-sync")
    /// A backend call on one of a person's installations, which names its application (`AppCode`) beside the
    /// API key.
    public static let pushRegistration = Self(rawValue: "push-registration")
    /// Sends one push, the body being the message (`to`, `targetOnlyPrimaryDevices`).
    public static let push = Self(rawValue: "push")
    /// Sends pushes, the body's `messages` each with its `to` and `targetOnlyPrimaryDevices`.
    public static let pushBatch = Self(rawValue: "push-batch")
    /// Sends pushes, the body's `messages` each with its `destinations`.
    public static let pushToDestinations = Self(rawValue: "push-to-destinations")
}
