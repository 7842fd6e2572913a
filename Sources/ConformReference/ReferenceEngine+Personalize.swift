import ConformCore

/// The identity a personalize call links the device to.
struct PersonIdentity: Sendable, Hashable {
    var externalUserId: String?
    var emails: [String] = []
    var phones: [String] = []

    var isEmpty: Bool { externalUserId == nil && emails.isEmpty && phones.isEmpty }
}

/// The query flags of personalize (M4, B3).
struct PersonalizeOptions: Sendable, Hashable {
    var forceDepersonalize = false
    var keepAsLead = false
    var setDeviceAsPrimary = false
    /// Whether the backend (B3) asked, rather than the device (M4, M5).
    var fromBackend = false
}

extension ReferenceEngine {
    /// Reads the mobile `userIdentity` (`externalUserId`, `phones[].number`, `emails[].address`).
    func mobileIdentity(_ value: JSONValue?) throws(ReferenceError) -> PersonIdentity {
        guard let object = value?.objectValue else {
            if has(.emptyIdentityAccepted) { return PersonIdentity() }
            throw .service(400, "USER_IDENTITY_INVALID", "'userIdentity' is required and must be an object.")
        }
        var identity = PersonIdentity()
        if let ext = object["externalUserId"], !ext.isNull {
            guard let s = ext.stringValue else {
                throw .service(400, "USER_IDENTITY_INVALID", "'externalUserId' must be a string.")
            }
            if !s.isEmpty { identity.externalUserId = s }
        }
        identity.phones = try phones(object["phones"])
        identity.emails = try emails(object["emails"])
        if identity.isEmpty && !has(.emptyIdentityAccepted) {
            throw .service(
                400, "USER_IDENTITY_INVALID", "'userIdentity' needs at least one of externalUserId, phones or emails.")
        }
        return identity
    }

    /// Phone numbers from `[{"number": "385…"}]`; digits only, 5 to 15 of them.
    func phones(_ value: JSONValue?) throws(ReferenceError) -> [String] {
        try contacts(value, list: "phones", member: "number", code: "PHONE_INVALID", valid: Self.isValidPhone) {
            "Phone number \($0) must be 5 to 15 digits."
        }
    }

    /// Email addresses from `[{"address": "a@b.c"}]`.
    func emails(_ value: JSONValue?) throws(ReferenceError) -> [String] {
        try contacts(value, list: "emails", member: "address", code: "EMAIL_INVALID", valid: Self.isValidEmail) {
            "Email \($0) is not a valid address."
        }
    }

    /// The contacts of the array `list` (absent or `null`: none), each an object with `member` or a bare string,
    /// once each in the order given; one that is not `valid` is refused with `code` and `invalid` of its JSON.
    private func contacts(
        _ value: JSONValue?, list: String, member: String, code: String, valid: (String) -> Bool,
        invalid: (String) -> String
    ) throws(ReferenceError) -> [String] {
        guard let value, !value.isNull else { return [] }
        guard let array = value.arrayValue else { throw .service(400, code, "'\(list)' must be an array.") }
        var result: [String] = []
        for item in array {
            let contact = item[member]?.stringValue ?? item.stringValue
            guard let contact, valid(contact) else { throw .service(400, code, invalid(item.serialized())) }
            if !result.contains(contact) { result.append(contact) }
        }
        return result
    }

    static func isValidPhone(_ s: String) -> Bool {
        (5...15).contains(s.count) && s.allSatisfy { $0.isASCII && $0.isNumber }
    }

    static func isValidEmail(_ s: String) -> Bool {
        guard s.count <= 255, !s.contains(where: { $0.isWhitespace }) else { return false }
        let parts = s.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return false }
        let domain = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return domain.count >= 2 && domain.allSatisfy { !$0.isEmpty }
    }

    /// Links installation `id` to the person owning `identity` (D2, D3, D4, D6); returns that person's id.
    func personalize(
        _ id: String, identity: PersonIdentity, attributes: JSONObject, options: PersonalizeOptions,
        state: inout ReferenceState
    ) throws(ReferenceError) -> String {
        guard let installation = state.installations[id], let current = state.persons[installation.personId] else {
            throw .noRegistration(id)
        }
        let app = installation.applicationId
        let owner: Person?
        if let ext = identity.externalUserId {
            owner = state.person(applicationId: app, externalUserId: ext)
        } else {
            let candidates = state.persons(applicationId: app, emails: identity.emails, phones: identity.phones)
            if candidates.count > 1 && !has(.mergeConflictsIgnored) {
                throw .service(
                    400, "AMBIGUOUS_PERSONALIZE_CANDIDATES",
                    "The identity matches \(candidates.count) different persons.")
            }
            owner = candidates.first
        }
        let conflictsWithCurrent: Bool =
            if let owner { owner.id != current.id } else {
                current.externalUserId != nil && identity.externalUserId != nil
                    && current.externalUserId != identity.externalUserId
            }
        let target: String
        if current.isAnonymous {
            // Step 2 of the flow: the device was owned by an anonymous person.
            if options.forceDepersonalize && has(.forceOnAnonymousRefused) {
                throw .service(400, "PERSONALIZATION_IMPOSSIBLE", "There is no personalization to force away.")
            }
            target = owner?.id ?? current.id
            changePerson(id, to: target, state: &state)
        } else if !conflictsWithCurrent && options.forceDepersonalize && has(.forcedReloginNewPerson),
            let ext = identity.externalUserId, ext == current.externalUserId
        {
            // The fault: force detaches first and makes a second person of the same externalUserId.
            target = state.newAnonymousPerson(applicationId: app)
            state.persons[target]?.externalUserId = ext
            changePerson(id, to: target, state: &state)
        } else if !conflictsWithCurrent {
            // D3: the same identity again is idempotent.
            if has(.personalizeNotIdempotent) && identity.externalUserId != nil
                && identity.externalUserId == current.externalUserId
            {
                throw .mergeInterrupted("The installation is already personalized.")
            }
            target = current.id
        } else {
            let force = options.forceDepersonalize && !has(.ignoreForceDepersonalize)
            guard force || has(.mergeOnDifferentUser) else {
                // D2: refused; the device stays with its person.
                throw .mergeInterrupted(
                    "The installation belongs to another user; personalize with forceDepersonalize=true to switch.")
            }
            // D4: the device leaves the old person, which keeps its other devices.
            if has(.forceDepersonalizeDropsOtherDevices) {
                for other in current.installations where other != id {
                    state.move(other, to: state.newAnonymousPerson(applicationId: app))
                }
            }
            target = owner?.id ?? state.newAnonymousPerson(applicationId: app)
            changePerson(id, to: target, state: &state)
        }
        if let ext = identity.externalUserId, state.persons[target]?.externalUserId == nil {
            state.setExternalUserId(ext, of: target)
        }
        guard var person = state.persons[target] else { throw .noRegistration(id) }
        for email in identity.emails where !person.emails.contains(email) { person.emails.append(email) }
        for phone in identity.phones where !person.phones.contains(phone) { person.phones.append(phone) }
        try applyUserAttributes(attributes, to: &person)
        if !options.keepAsLead || has(.keepAsLeadIgnored) { person.type = "CUSTOMER" }
        state.persons[target] = person
        if options.setDeviceAsPrimary && !has(.setDeviceAsPrimaryIgnored) {
            let notExclusive =
                has(.primaryNotExclusive) || (options.fromBackend && has(.backendPersonalizePrimaryNotExclusive))
            state.setPrimary(id, true, exclusive: !notExclusive)
        }
        return target
    }

    /// Moves installation `id` to a fresh anonymous person (D5); repeating it is harmless.
    ///
    /// Returns whether anything changed (false when the device is already alone with an anonymous person).
    @discardableResult
    func depersonalize(_ id: String, state: inout ReferenceState) -> Bool {
        guard !has(.depersonalizeNoop), let installation = state.installations[id],
            let current = state.persons[installation.personId]
        else { return false }
        if current.isAnonymous && current.installations == [id] { return false }
        let fresh = state.newAnonymousPerson(applicationId: installation.applicationId)
        if has(.depersonalizeKeepsIdentity) {
            state.persons[fresh]?.staleExternalUserId = current.externalUserId ?? current.staleExternalUserId
        }
        if has(.depersonalizeKeepsUserData) {
            state.persons[fresh]?.attributes = current.attributes
            state.persons[fresh]?.tags = current.tags
            state.persons[fresh]?.customAttributes = current.customAttributes
        }
        changePerson(id, to: fresh, state: &state)
        if has(.depersonalizeLogsOutSiblings) {
            for other in current.installations where other != id {
                changePerson(
                    other, to: state.newAnonymousPerson(applicationId: installation.applicationId), state: &state)
            }
        }
        return true
    }

    /// Moves installation `id` to person `personId`: the device arrives non-primary (D6), and pushes sent to a
    /// previous person with an identity and not yet handed out are withdrawn, never handed to the next user (D12).
    func changePerson(_ id: String, to personId: String, state: inout ReferenceState) {
        guard let installation = state.installations[id], installation.personId != personId else { return }
        let previous = installation.personId
        let previousHadIdentity = state.persons[previous].map { !$0.isAnonymous } ?? false
        state.move(id, to: personId)
        if has(.primaryKeptAcrossPersons) && installation.isPrimary { state.installations[id]?.isPrimary = true }
        if previousHadIdentity && !has(.switchKeepsPendingPushes) {
            state.installations[id]?.pending.removeAll { $0.forPerson == previous }
        }
    }

    /// Applies standard attributes, tags and custom attributes (null deletes) to a person.
    func applyUserAttributes(_ attributes: JSONObject, to person: inout Person) throws(ReferenceError) {
        for (key, value) in attributes {
            switch key {
            case "firstName", "lastName", "middleName", "gender", "birthday":
                if value.isNull {
                    person.attributes[key] = nil
                } else if value.stringValue != nil {
                    person.attributes[key] = value
                } else {
                    throw .requestFormat("'\(key)' must be a string.")
                }
            case "tags":
                if value.isNull {
                    person.tags = []
                } else if let array = value.arrayValue, array.allSatisfy({ $0.stringValue != nil }) {
                    person.tags = array.compactMap(\.stringValue)
                } else {
                    throw .requestFormat("'tags' must be an array of strings.")
                }
            case "customAttributes":
                try merge(value, into: &person.customAttributes, name: key)
            default:
                continue  // identity keys and unknown attributes are ignored (Android strips them too)
            }
        }
    }
}
