import ConformCore

extension ReferenceEngine {
    /// The pushRegIds of `app` that `filter` selects, person by person in join order.
    ///
    /// Registrations with `regEnabled=false` are never reached. With `onlyPrimary` only primary devices count;
    /// a person without one is reached on no device (D7).
    func resolve(
        _ filter: JSONObject, app: ReferenceConfiguration.Application, onlyPrimary: Bool, state: ReferenceState
    ) throws(InvalidPushQuery) -> [String] {
        var result: [String] = []
        let persons = candidates(filter, app: app, state: state)
        for person in persons {
            var reached: [String] = []
            for id in person.installations {
                guard let installation = state.installations[id],
                    installation.regEnabled || has(.disabledRegistrationReached)
                else { continue }
                if onlyPrimary && !installation.isPrimary && !has(.targetOnlyPrimaryIgnored) { continue }
                if try matches(filter, installation, person) { reached.append(id) }
            }
            if has(.pushReachesOnlyFirstDevice) { reached = Array(reached.prefix(1)) }
            result += reached
        }
        return result
    }

    /// The persons a filter can reach: one lookup for a plain externalUserId or pushRegistrationId, else all.
    private func candidates(
        _ filter: JSONObject, app: ReferenceConfiguration.Application, state: ReferenceState
    ) -> [Person] {
        if let ext = filter["externalUserId"]?.stringValue {
            return state.person(applicationId: app.id, externalUserId: ext).map { [$0] } ?? []
        }
        if let id = filter["pushRegistrationId"]?.stringValue {
            guard let installation = state.installations[id], installation.applicationId == app.id else { return [] }
            return state.persons[installation.personId].map { [$0] } ?? []
        }
        return state.persons.values.filter { $0.applicationId == app.id }.sorted { $0.id < $1.id }
    }

    /// Whether every member of `filter` holds; `$or` / `$and` take arrays of filters, arrays of values mean any-of.
    func matches(_ filter: JSONObject, _ installation: Installation, _ person: Person) throws(InvalidPushQuery) -> Bool
    {
        for (key, value) in filter {
            switch key {
            case "$or", "$and":
                guard let parts = value.arrayValue, parts.allSatisfy({ $0.objectValue != nil }) else {
                    throw InvalidPushQuery(message: "'\(key)' must be an array of objects")
                }
                var results: [Bool] = []
                for part in parts {
                    results.append(try matches(part.objectValue ?? JSONObject(), installation, person))
                }
                if key == "$or" ? !results.contains(true) : results.contains(false) { return false }
            default:
                let wanted = try values(value, key: key)
                if !wanted.contains(where: { candidate in have(key, installation, person).contains(candidate) }) {
                    return false
                }
            }
        }
        return true
    }

    private func values(_ value: JSONValue, key: String) throws(InvalidPushQuery) -> [String] {
        switch value {
        case .array(let items):
            var out: [String] = []
            for item in items { out += try values(item, key: key) }
            return out
        case .object: throw InvalidPushQuery(message: "'\(key)' must be a value or an array of values")
        default: return [value.text.lowercased()]
        }
    }

    /// The lower-cased values an installation and its person hold for a filter key.
    private func have(_ key: String, _ installation: Installation, _ person: Person) -> [String] {
        let values: [String]
        switch key {
        case "externalUserId": values = person.externalUserId.map { [$0] } ?? []
        case "pushRegistrationId": values = [installation.pushRegId]
        case "email": values = person.emails
        case "phoneNumber": values = person.phones
        case configuration.tagKey where has(.tagsReadFromInstallation):
            values = [installation.customAttributes[key]?.text].compactMap { $0 }
        case configuration.tagKey: values = person.tags
        case "platform", "os": values = [installation.fields["os"]?.text].compactMap { $0 }
        case "cloudType":
            values = [installation.fields["pushServiceType"]?.text].compactMap { $0 }.map(ReferenceRendering.cloudType)
        case "pushRegistrationEnabled": values = [String(installation.regEnabled)]
        case "notificationsEnabled": values = [String(installation.notificationsEnabled)]
        case "applicationVersion": values = [installation.fields["appVersion"]?.text].compactMap { $0 }
        default:
            values = [installation.customAttributes[key], installation.fields[key], person.customAttributes[key]]
                .compactMap { $0?.text }
        }
        return values.map { $0.lowercased() }
    }
}
