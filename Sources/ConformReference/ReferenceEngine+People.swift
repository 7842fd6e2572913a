import ConformCore

extension ReferenceEngine {
    /// D10 on the backend: 400 `{"errorCode":48013,…}`.
    static func registrationNotFound(_ id: String) -> ReferenceError { .people(48013, "Push registration not found") }

    /// B1: `GET /people/2/contactInformation/push/{pushRegId}`.
    func getPushInstance(_ id: String, _ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError)
        -> HTTPResponse
    {
        let app = try backendApplication(request, requireAppCode: true)
        let installation = try installation(id, app: app, state: &state, unknown: Self.registrationNotFound)
        return .json(200, ReferenceRendering.pushInstance(installation, explicitNulls: has(.explicitNulls)))
    }

    /// B2: `PATCH /people/2/contactInformation/push/{pushRegId}`: `isPrimary`, `systemData.registrationEnabled`, `additionalData`.
    func patchPushInstance(_ id: String, _ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError)
        -> HTTPResponse
    {
        let app = try backendApplication(request, requireAppCode: true)
        var installation = try installation(id, app: app, state: &state, unknown: Self.registrationNotFound)
        let body = try objectBody(request, invalid: { .service(400, "BAD_REQUEST", $0) })
        if let enabled = body["systemData"]?["registrationEnabled"], !enabled.isNull {
            guard let flag = enabled.boolValue else {
                throw .service(400, "BAD_REQUEST", "'systemData.registrationEnabled' must be a boolean.")
            }
            installation.regEnabled = flag
        }
        if let additional = body["additionalData"] {
            do {
                try merge(additional, into: &installation.customAttributes, name: "additionalData")
            } catch {
                throw .service(400, "BAD_REQUEST", "'additionalData' must be an object.")
            }
        }
        state.installations[id] = installation
        if let primary = body["isPrimary"], !primary.isNull {
            guard let flag = primary.boolValue else {
                throw .service(400, "BAD_REQUEST", "'isPrimary' must be a boolean.")
            }
            state.setPrimary(id, flag, exclusive: !has(.primaryNotExclusive))
        }
        return .json(
            200,
            ReferenceRendering.pushInstance(
                state.installations[id] ?? installation, explicitNulls: has(.explicitNulls)))
    }

    /// B3: `POST /people/2/contactInformation/push/{pushRegId}/personalize` with `{identity, attributes}`.
    ///
    /// Business refusals reuse the mobile `messageId`s (D1, D2) in the standard envelope: the backend sources
    /// name only the 4800x codes.
    func backendPersonalize(_ id: String, _ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError)
        -> HTTPResponse
    {
        let app = try backendApplication(request, requireAppCode: true)
        _ = try installation(id, app: app, state: &state, unknown: Self.registrationNotFound)
        let options = PersonalizeOptions(
            forceDepersonalize: try queryBool(request, "forceDepersonalize"),
            keepAsLead: try queryBool(request, "keepAsLead"),
            setDeviceAsPrimary: try queryBool(request, "setDeviceAsPrimary"), fromBackend: true)
        let returnPush = try queryBool(request, "returnPush")
        let body = try objectBody(request)
        let identity = try backendIdentity(body["identity"])
        var attributes = has(.backendAttributesIgnored) ? JSONObject() : body["attributes"]?.objectValue ?? JSONObject()
        if let birthday = attributes["birthday"]?.stringValue, birthday.count > 10 {
            attributes["birthday"] = .string(String(birthday.prefix(10)))  // date-time on the backend, date on mobile
        }
        let personId = try personalize(id, identity: identity, attributes: attributes, options: options, state: &state)
        guard let person = state.persons[personId] else { throw Self.registrationNotFound(id) }
        let push = returnPush ? person.installations.compactMap { state.installations[$0] } : nil
        return .json(200, ReferenceRendering.backendPerson(person, push: push, explicitNulls: has(.explicitNulls)))
    }

    /// B4: `POST /people/2/contactInformation/push/{pushRegId}/depersonalize`: 200 with no content.
    func backendDepersonalize(_ id: String, _ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError)
        -> HTTPResponse
    {
        let app = try backendApplication(request, requireAppCode: true)
        _ = try installation(id, app: app, state: &state, unknown: Self.registrationNotFound)
        depersonalize(id, state: &state)
        return .empty(200)
    }

    /// B5: `GET /people/2/persons?identifier=…&type=EXTERNAL_ID|EMAIL|PHONE`.
    func getPerson(_ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError) -> HTTPResponse {
        let app = try backendApplication(request, requireAppCode: false)
        guard let identifier = request.queryValue("identifier"), !identifier.isEmpty else {
            throw .service(400, "BAD_REQUEST", "Query parameter 'identifier' is required.")
        }
        let type = (request.queryValue("type") ?? "EXTERNAL_ID").uppercased()
        let person: Person?
        switch type {
        case "EXTERNAL_ID": person = state.person(applicationId: app.id, externalUserId: identifier)
        case "EMAIL": person = state.persons(applicationId: app.id, emails: [identifier], phones: []).first
        case "PHONE": person = state.persons(applicationId: app.id, emails: [], phones: [identifier]).first
        default: throw .service(400, "BAD_REQUEST", "Query parameter 'type' must be EXTERNAL_ID, EMAIL or PHONE.")
        }
        guard let person else { throw .service(404, "NOT_FOUND", "No person with \(type) '\(identifier)'.") }
        let push = person.installations.compactMap { state.installations[$0] }
        return .json(200, ReferenceRendering.backendPerson(person, push: push, explicitNulls: has(.explicitNulls)))
    }

    /// Reads the backend `identity` (`externalId`, `email`, `phoneNumber`); `"null"` in any case means null (§4.1).
    func backendIdentity(_ value: JSONValue?) throws(ReferenceError) -> PersonIdentity {
        guard let object = value?.objectValue else {
            throw .service(400, "USER_IDENTITY_INVALID", "'identity' is required and must be an object.")
        }
        func text(_ key: String) throws(ReferenceError) -> String? {
            guard let v = object[key], !v.isNull else { return nil }
            guard let s = v.stringValue else {
                throw .service(400, "USER_IDENTITY_INVALID", "'\(key)' must be a string.")
            }
            return s.isEmpty || s.lowercased() == "null" ? nil : s
        }
        var identity = PersonIdentity(externalUserId: try text("externalId"))
        if let email = try text("email") {
            guard Self.isValidEmail(email) else {
                throw .service(400, "EMAIL_INVALID", "'\(email)' is not a valid address.")
            }
            identity.emails = [email]
        }
        if let phone = try text("phoneNumber") {
            guard Self.isValidPhone(phone) else {
                throw .service(400, "PHONE_INVALID", "'\(phone)' must be 5 to 15 digits.")
            }
            identity.phones = [phone]
        }
        if identity.isEmpty {
            throw .service(400, "USER_IDENTITY_INVALID", "'identity' needs externalId, email or phoneNumber.")
        }
        return identity
    }
}
