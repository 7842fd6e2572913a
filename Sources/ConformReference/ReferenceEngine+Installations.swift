import ConformCore

extension ReferenceEngine {
    /// M1: `POST /mobile/1/appinstance` creates an installation owned by a fresh anonymous person.
    func register(_ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError) -> HTTPResponse {
        let (app, _) = try mobileApplication(request, allowBearer: false, state: state)
        let body = try objectBody(request)
        let id = state.ids.next("registration")
        let person = state.newAnonymousPerson(applicationId: app.id)
        var installation = Installation(pushRegId: id, applicationId: app.id, personId: person)
        try apply(body, to: &installation)
        state.installations[id] = installation
        state.persons[person]?.installations.append(id)
        if body["isPrimary"]?.boolValue == true { state.setPrimary(id, true, exclusive: true) }
        let created = state.installations[id] ?? installation
        return ReferenceRendering.installationResponse(
            created, includePushRegId: !has(.registrationWithoutPushRegId), explicitNulls: has(.explicitNulls))
    }

    /// M3: `GET /mobile/1/appinstance/{id}`.
    func getInstallation(_ id: String, _ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError)
        -> HTTPResponse
    {
        let (app, _) = try mobileApplication(request, allowBearer: false, state: state)
        let installation = try mobileTarget(id, app: app, request: request, state: &state)
        return ReferenceRendering.installationResponse(installation, explicitNulls: has(.explicitNulls))
    }

    /// M2: `PATCH /mobile/1/appinstance/{id}`, own or another installation of the same person (§3.2).
    func patchInstallation(_ id: String, _ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError)
        -> HTTPResponse
    {
        let (app, _) = try mobileApplication(request, allowBearer: false, state: state)
        var installation = try mobileTarget(id, app: app, request: request, state: &state)
        var body = try objectBody(request)
        if has(.systemDataPatchIgnored) {
            for key in body.keys where !ReferenceRendering.managedInstallationKeys.contains(key) { body[key] = nil }
        }
        try apply(body, to: &installation)
        state.installations[id] = installation
        if let primary = body["isPrimary"], !primary.isNull {
            guard let flag = primary.boolValue else { throw .requestFormat("'isPrimary' must be a boolean.") }
            // D6: at most one primary device per person.
            state.setPrimary(id, flag, exclusive: !has(.primaryNotExclusive))
        }
        return ReferenceRendering.installationResponse(
            state.installations[id] ?? installation, explicitNulls: has(.explicitNulls))
    }

    /// M11: `DELETE /mobile/1/appinstance/{id}` removes an (expired) registration.
    func deleteInstallation(_ id: String, _ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError)
        -> HTTPResponse
    {
        let (app, _) = try mobileApplication(request, allowBearer: false, state: state)
        _ = try mobileTarget(id, app: app, request: request, state: &state)
        if !has(.deleteInstallationNoop) { state.remove(id) }
        return .empty(200)
    }

    /// M12: `GET /mobile/1/baseurl` answers the origin the request came to, else the configured base URL (the same
    /// URL the `newBaseURL` variant announces).
    func baseURL(_ request: HTTPRequest) throws(ReferenceError) -> HTTPResponse {
        _ = try mobileApplication(request, allowBearer: false)
        let base = origin(of: request)
        return .json(200, ["baseUrl": .string(has(.baseURLNotServed) ? base + "/moved" : base)])
    }

    /// Applies a (partial) installation body: flags, custom attributes (null deletes) and any other field.
    func apply(_ body: JSONObject, to installation: inout Installation) throws(ReferenceError) {
        for (key, value) in body {
            switch key {
            case "pushRegId", "isPrimary": continue  // the id is assigned; primary needs the person (D6)
            case "regEnabled", "notificationsEnabled":
                if value.isNull { continue }
                guard let flag = value.boolValue else { throw .requestFormat("'\(key)' must be a boolean.") }
                if key == "regEnabled" {
                    installation.regEnabled = flag
                } else {
                    installation.notificationsEnabled = flag
                }
            case "customAttributes":
                try merge(value, into: &installation.customAttributes, name: key)
            default:
                if value.isNull { installation.fields[key] = nil } else { installation.fields[key] = value }
            }
        }
    }

    /// Merges a JSON object into `target`; `null` members delete, a `null` whole clears.
    func merge(_ value: JSONValue, into target: inout JSONObject, name: String) throws(ReferenceError) {
        if value.isNull {
            target = JSONObject()
            return
        }
        guard let object = value.objectValue else { throw .requestFormat("'\(name)' must be an object.") }
        for (k, v) in object {
            if v.isNull { target[k] = nil } else { target[k] = v }
        }
    }
}
