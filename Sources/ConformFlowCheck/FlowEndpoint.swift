import ConformCore

/// Which endpoint of the protocol a request is, as the profile's catalogue classified it
/// (``ProtocolProfile/endpoints``); Mobile Messaging's are `M1`…`M16` and `B1`…`B8`. The checker tells the calls
/// apart by their traits and roles alone; an endpoint's id only names it in findings.
public typealias FlowEndpoint = ProtocolProfile.Endpoint

extension ProtocolProfile.Endpoint {
    /// A call of the app's API.
    var isMobile: Bool { traits.contains(.fromApp) }
    /// A call of the backend's API.
    var isBackend: Bool { traits.contains(.fromBackend) }
    /// A call that needs a registration first.
    var isUserCall: Bool { traits.contains(.needsRegistration) }
    /// A call that carries or reveals personal data from the app.
    var sendsPersonalData: Bool { traits.contains(.sendsPersonalData) }
    /// A call that needs `Bearer <JWT>` in JWT mode.
    var needsJWT: Bool { traits.contains(.needsUserToken) }
    /// The registration id the path names, if it names one.
    var pathRegistrationId: String? { registrationID }

    /// A registration, whose answer names a new installation.
    var isRegistration: Bool { traits.contains(.registration) }
    /// A call that names its installation once the installation is registered: neither the registration itself
    /// nor a call any installation may send without naming itself.
    var namesRegistration: Bool { !isRegistration && !traits.contains(.withoutRegistration) }
    /// A personalize, one that may force (``ProtocolProfile/Trait/personalize``) or a repersonalize.
    var isPersonalize: Bool { traits.contains(.personalize) || traits.contains(.repersonalize) }
    /// Whether a personalize takes the query that forces a depersonalize and sets the primary flag.
    var canForce: Bool { !traits.contains(.repersonalize) }
    /// A depersonalize.
    var isDepersonalize: Bool { traits.contains(.depersonalize) }
    /// A read of the installation's user.
    var readsUser: Bool { traits.contains(.readUser) }
    /// An update of the installation's user.
    var updatesUser: Bool { traits.contains(.updateUser) }
    /// How a push names its targets, for a push.
    var pushShape: PushShape? {
        traits.contains(.push)
            ? .single
            : traits.contains(.pushBatch) ? .batch : traits.contains(.pushToDestinations) ? .destinations : nil
    }
}

/// How a push's body names the persons it targets.
enum PushShape {
    /// The body is the one message (`to`, `targetOnlyPrimaryDevices`).
    case single
    /// The body's `messages`, each with its `to` and `targetOnlyPrimaryDevices`.
    case batch
    /// The body's `messages`, each with its `destinations`.
    case destinations
}

/// Reads a query boolean in either SDK dialect: Android `true`/`false`, iOS `1`/`0`.
func queryFlag(_ request: HTTPRequest, _ name: String) -> Bool {
    guard let value = request.queryValue(name)?.lowercased() else { return false }
    return value == "true" || value == "1"
}
