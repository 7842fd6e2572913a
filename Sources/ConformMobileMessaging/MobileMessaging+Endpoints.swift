import ConformCore

/// The profile's endpoint catalogue: the mobile API's `M1`…`M16` and the backend's `B1`…`B8` (`B?` for a backend
/// path of the People or Push API that is none of them), with the traits and roles the flow checker judges them by.
extension MobileMessaging {
    /// Mobile calls that need a registration first: M4–M10 and M14.
    static let needRegistration: Set<String> = ["M4", "M5", "M6", "M7", "M8", "M9", "M10", "M14"]
    /// Calls that carry or reveal personal data from the app: personalize, repersonalize, PATCH user.
    static let sendPersonalData: Set<String> = ["M4", "M5", "M8"]
    /// Calls that need `Bearer <JWT>` in JWT mode: M4, M5, M7, M8.
    static let needUserToken: Set<String> = ["M4", "M5", "M7", "M8"]

    /// Calls that may carry a user token though they need none: the inbox, M13.
    static let acceptUserToken: Set<String> = ["M13"]
    /// What each endpoint does in the flow, besides being a call of the app (`M…`) or of the backend (`B…`).
    static let roles: [String: Set<ProtocolProfile.Trait>] = [
        "M1": [.registration], "M2": [.updateInstallation], "M3": [.readInstallation], "M4": [.personalize],
        "M5": [.repersonalize], "M6": [.depersonalize], "M7": [.readUser], "M8": [.updateUser],
        "M11": [.deleteInstallation], "M12": [.withoutRegistration], "M14": [.messageSync],
        "B1": [.pushRegistration], "B2": [.pushRegistration, .updateInstallation],
        "B3": [.pushRegistration, .personalize], "B4": [.pushRegistration, .depersonalize], "B5": [.readPerson],
        "B6": [.push], "B7": [.pushBatch], "B8": [.pushToDestinations],
    ]

    /// Classifies a request by effective method (Android's `X-HTTP-Method-Override` included) and path.
    public static let endpoints = ProtocolProfile.EndpointCatalogue { request in classify(request) }

    static func endpoint(_ id: String, _ registration: String? = nil) -> ProtocolProfile.Endpoint {
        var traits: Set<ProtocolProfile.Trait> = []
        if needRegistration.contains(id) { traits.insert(.needsRegistration) }
        if sendPersonalData.contains(id) { traits.insert(.sendsPersonalData) }
        if needUserToken.contains(id) { traits.insert(.needsUserToken) }
        if acceptUserToken.contains(id) { traits.insert(.acceptsUserToken) }
        let fromApp = id.hasPrefix("M")
        traits.formUnion(roles[id] ?? [])
        traits.insert(fromApp ? .fromApp : .fromBackend)
        return ProtocolProfile.Endpoint(
            id: id, base: fromApp ? mobile.name : backend.name, registrationID: registration, traits: traits)
    }

    static func classify(_ request: HTTPRequest) -> ProtocolProfile.Endpoint? {
        let method = request.effectiveMethod
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map { percentDecode($0) }
        let make = endpoint
        if parts.first == "mobile" {
            if parts.count >= 3, parts[1] == "1", parts[2] == "appinstance" {
                if parts.count == 3 { return method == .post ? make("M1", nil) : nil }
                let id = parts[3]
                switch (method, Array(parts.dropFirst(4))) {
                case (.patch, []): return make("M2", id)
                case (.get, []): return make("M3", id)
                case (.delete, []): return make("M11", id)
                case (.post, ["personalize"]): return make("M4", id)
                case (.post, ["repersonalize"]): return make("M5", id)
                case (.post, ["depersonalize"]): return make("M6", id)
                case (.get, ["user"]): return make("M7", id)
                case (.patch, ["user"]): return make("M8", id)
                case (.post, ["user", "events", "session"]): return make("M9", id)
                case (.post, ["user", "events", "custom"]): return make("M10", id)
                default: return nil
                }
            }
            switch (method, parts) {
            case (.get, ["mobile", "1", "baseurl"]): return make("M12", nil)
            case (.post, ["mobile", "5", "messages"]): return make("M14", nil)
            case (.post, ["mobile", "1", "messages", "deliveryreport"]): return make("M15", nil)
            case (.post, ["mobile", "2", "messages", "seen"]): return make("M16", nil)
            default:
                if parts.count >= 3, parts[1] == "1", parts[2] == "user" { return make("M13", nil) }
                return nil
            }
        }
        if parts.first == "people" {
            if parts.count >= 5, parts[2] == "contactInformation", parts[3] == "push" {
                let id = parts[4]
                switch (method, Array(parts.dropFirst(5))) {
                case (.get, []): return make("B1", id)
                case (.patch, []): return make("B2", id)
                case (.post, ["personalize"]): return make("B3", id)
                case (.post, ["depersonalize"]): return make("B4", id)
                default: return make("B?", id)
                }
            }
            if parts.count >= 3, parts[2] == "persons" { return make("B5", nil) }
            return make("B?", nil)
        }
        if parts.first == "push" {
            switch parts {
            case ["push", "2", "message", "single"]: return make("B6", nil)
            case ["push", "2", "message", "multi"]: return make("B7", nil)
            case ["push", "3", "messages"]: return make("B8", nil)
            default: return make("B?", nil)
            }
        }
        return nil
    }
}
