import ConformCore

extension ReferenceEngine {
    /// Refuses user-data changes from the mobile SDK on a restricted profile, of updates or of access (D8).
    func checkNotRestricted(_ app: ReferenceConfiguration.Application) throws(ReferenceError) {
        let restricted = app.userDataMode == .restricted || app.userDataMode == .restrictedAccess
        if restricted && !has(.restrictedNotEnforced) { throw .userDataRestricted }
    }

    /// M4: `POST /mobile/1/appinstance/{id}/personalize?forceDepersonalize=&keepAsLead=&setDeviceAsPrimary=`.
    func personalize(_ id: String, _ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError)
        -> HTTPResponse
    {
        let options = PersonalizeOptions(
            forceDepersonalize: try queryBool(request, "forceDepersonalize"),
            keepAsLead: try queryBool(request, "keepAsLead"),
            setDeviceAsPrimary: try queryBool(request, "setDeviceAsPrimary"))
        return try personalizeFromMobile(id, request, options: options, state: &state)
    }

    /// M5: `POST /mobile/1/appinstance/{id}/repersonalize`: the stored user re-sent, without query flags.
    func repersonalize(_ id: String, _ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError)
        -> HTTPResponse
    {
        try personalizeFromMobile(id, request, options: PersonalizeOptions(), state: &state)
    }

    private func personalizeFromMobile(
        _ id: String, _ request: HTTPRequest, options: PersonalizeOptions, state: inout ReferenceState
    ) throws(ReferenceError) -> HTTPResponse {
        let (app, credential) = try mobileApplication(request, allowBearer: true, installationId: id, state: state)
        let body = try objectBody(request)
        let identity = try mobileIdentity(body["userIdentity"])
        // D9: the token's sub must be the externalUserId being personalized; JWT mode requires one.
        if app.userDataMode == .jwt && identity.externalUserId == nil && !has(.jwtNotVerified) {
            throw .jwtRefused("In JWT mode personalize needs userIdentity.externalUserId matching the JWT 'sub'.")
        }
        try authorizeUserData(app, credential, subject: identity.externalUserId)
        try checkNotRestricted(app)
        let installation = try mobileTarget(id, app: app, request: request, state: &state)
        let attributes = body["userAttributes"]?.objectValue ?? JSONObject()
        let personId = try personalize(
            installation.pushRegId, identity: identity, attributes: attributes, options: options, state: &state)
        guard let person = state.persons[personId] else { throw .noRegistration(id) }
        // The personalize response carries the user without `instances` (§10 item 5 leaves it open).
        return ReferenceRendering.userResponse(person, explicitNulls: has(.explicitNulls))
    }

    /// M6: `POST /mobile/1/appinstance/{id}/depersonalize`, own or another device of the same person (D5).
    func depersonalize(_ id: String, _ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError)
        -> HTTPResponse
    {
        let (app, _) = try mobileApplication(request, allowBearer: false, state: state)
        var installation = try mobileTarget(id, app: app, request: request, state: &state)
        if has(.otherDepersonalizeActsOnCaller), let caller = request.headerFields["pushregistrationid"],
            let own = state.installations[caller]
        {
            installation = own
        }
        guard depersonalize(installation.pushRegId, state: &state) else {
            if has(.repeatedDepersonalizeRefused) {
                throw .service(400, "PERSONALIZATION_IMPOSSIBLE", "The installation is not personalized.")
            }
            return repeatedDepersonalizeResponse()
        }
        return .empty(200)
    }

    /// M7: `GET /mobile/1/appinstance/{id}/user`: the user plus `instances`.
    func getUser(_ id: String, _ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError)
        -> HTTPResponse
    {
        let (app, credential) = try mobileApplication(request, allowBearer: true, installationId: id, state: state)
        let person = try userTarget(id, app: app, request: request, state: &state)
        try authorizeUserData(app, credential, subject: person.externalUserId)
        // D8: the updates-restricted profile still lets the app read the user, the access-restricted one does not.
        if app.userDataMode == .restricted && has(.restrictedRefusesRead) { throw .userDataRestricted }
        if app.userDataMode == .restrictedAccess && !has(.restrictedAccessReadAllowed) { throw .userDataRestricted }
        let instances = person.installations.compactMap { state.installations[$0] }
        return .json(
            200,
            ReferenceRendering.user(
                person, instances: instances, showStale: true, explicitNulls: has(.explicitNulls)))
    }

    /// M8: `PATCH /mobile/1/appinstance/{id}/user` with a delta; `null` deletes.
    func patchUser(_ id: String, _ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError)
        -> HTTPResponse
    {
        let (app, credential) = try mobileApplication(request, allowBearer: true, installationId: id, state: state)
        var person = try userTarget(id, app: app, request: request, state: &state)
        try authorizeUserData(app, credential, subject: person.externalUserId)
        try checkNotRestricted(app)
        var body = try objectBody(request)
        if has(.patchUserNullsIgnored) { body = Self.withoutNulls(body) }
        if let value = body["externalUserId"] {
            let wanted = value.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            guard value.isNull || value.stringValue != nil else {
                throw .service(400, "USER_IDENTITY_INVALID", "'externalUserId' must be a string.")
            }
            if wanted != person.externalUserId {
                if app.userDataMode == .jwt && !has(.jwtNotVerified) && !has(.jwtExternalUserIdChangeAllowed) {
                    throw .jwtRefused("In JWT mode the externalUserId changes only through personalize.")
                }
                if let wanted, let owner = state.person(applicationId: app.id, externalUserId: wanted),
                    owner.id != person.id
                {
                    guard has(.mergeConflictsIgnored) else {
                        throw .mergeInterrupted("externalUserId '\(wanted)' belongs to another person.")
                    }
                    body["externalUserId"] = nil  // the fault: the change is dropped and 200 answered
                }
            }
        }
        let newPhones: [String]? = body["phones"] == nil ? nil : try phones(body["phones"])
        let newEmails: [String]? = body["emails"] == nil ? nil : try emails(body["emails"])
        if let value = body["externalUserId"] {
            let wanted = value.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            if wanted != person.externalUserId {
                state.setExternalUserId(wanted, of: person.id)
                person.externalUserId = wanted
            }
        }
        if let newPhones { person.phones = newPhones }
        if let newEmails { person.emails = newEmails }
        try applyUserAttributes(body, to: &person)
        state.persons[person.id] = person
        return .json(200, ReferenceRendering.user(person, instances: nil, explicitNulls: has(.explicitNulls)))
    }

    /// M9: `POST /mobile/1/appinstance/{id}/user/events/session`.
    func sessionReport(_ id: String, _ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError)
        -> HTTPResponse
    {
        let (app, _) = try mobileApplication(request, allowBearer: false, state: state)
        let installation = try mobileTarget(id, app: app, request: request, state: &state)
        let body = try objectBody(request)
        if let starts = body["sessionStarts"], !starts.isNull {
            guard let array = starts.arrayValue else { throw .requestFormat("'sessionStarts' must be an array.") }
            for (index, start) in array.enumerated() {
                try checkSessionTime(start.stringValue, name: "sessionStarts[\(index)]")
            }
        }
        if let bounds = body["sessionBounds"], !bounds.isNull {
            guard let object = bounds.objectValue else { throw .requestFormat("'sessionBounds' must be an object.") }
            for (start, end) in object {
                try checkSessionTime(start, name: "a sessionBounds key")
                try checkSessionTime(end.stringValue, name: "sessionBounds['\(start)']")
            }
        }
        state.installations[installation.pushRegId]?.sessionReports += 1
        return .empty(200)
    }

    /// A session time in either dialect (§3.7): `yyyy-MM-dd'T'HH:mm:ss`, optional fraction, then `Z`, `+0100`
    /// (Android) or `+01:00` (iOS).
    private func checkSessionTime(_ text: String?, name: String) throws(ReferenceError) {
        let colonOnly = has(.sessionTimestampColonOnly)
        guard let text, SessionTime.isValid(text, allowCompactOffset: !colonOnly) else {
            throw .requestFormat(
                "\(name) must be a time like 2026-01-05T10:00:00+01:00 or 2026-01-05T10:00:00+0100, not \(text.map { "'\($0)'" } ?? "a non-string")."
            )
        }
    }

    /// M10: `POST /mobile/1/appinstance/{id}/user/events/custom?validate=`.
    func customEvents(_ id: String, _ request: HTTPRequest, state: inout ReferenceState) throws(ReferenceError)
        -> HTTPResponse
    {
        let (app, _) = try mobileApplication(request, allowBearer: false, state: state)
        let installation = try mobileTarget(id, app: app, request: request, state: &state)
        _ = try queryBool(request, "validate")
        let body = try objectBody(request)
        guard let events = body["events"]?.arrayValue else { throw .requestFormat("'events' must be an array.") }
        for (index, event) in events.enumerated() {
            guard let definition = event["definitionId"]?.stringValue, !definition.isEmpty else {
                throw .requestFormat("events[\(index)].definitionId must be a non-empty string.")
            }
        }
        state.installations[installation.pushRegId]?.customEvents += events.count
        return .empty(200)
    }

    /// `body` without its `null` members, also inside `customAttributes` (the `patchUserNullsIgnored` fault).
    static func withoutNulls(_ body: JSONObject) -> JSONObject {
        var out = JSONObject()
        for (key, value) in body where !value.isNull {
            if key == "customAttributes", let object = value.objectValue {
                out[key] = .object(withoutNulls(object))
            } else {
                out[key] = value
            }
        }
        return out
    }

    private func userTarget(
        _ id: String, app: ReferenceConfiguration.Application, request: HTTPRequest, state: inout ReferenceState
    ) throws(ReferenceError) -> Person {
        let installation = try mobileTarget(id, app: app, request: request, state: &state)
        guard let person = state.persons[installation.personId] else { throw .noRegistration(id) }
        return person
    }
}
