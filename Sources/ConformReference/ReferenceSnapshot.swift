/// A read-only copy of the reference's persons and installations.
public struct ReferenceSnapshot: Sendable, Hashable {
    /// One installation as the snapshot shows it.
    public struct Installation: Sendable, Hashable {
        public var pushRegId: String
        public var isPrimary: Bool
        public var regEnabled: Bool
        /// Message ids queued and not yet reported delivered.
        public var pendingMessageIds: [String]
    }

    /// One person with its installations in join order.
    public struct Person: Sendable, Hashable {
        public var id: String
        public var applicationId: String
        public var externalUserId: String?
        public var emails: [String]
        public var phones: [String]
        public var tags: [String]
        public var type: String
        public var installations: [Installation]
    }

    /// Persons sorted by application, then externalUserId, then id.
    public var persons: [Person]

    /// The person holding installation `pushRegId`.
    public func person(holding pushRegId: String) -> Person? {
        persons.first { $0.installations.contains { $0.pushRegId == pushRegId } }
    }

    /// The person of application `applicationId` with `externalUserId`.
    public func person(externalUserId: String, applicationId: String = "default") -> Person? {
        persons.first { $0.applicationId == applicationId && $0.externalUserId == externalUserId }
    }

    /// The installation `pushRegId`.
    public func installation(_ pushRegId: String) -> Installation? {
        persons.lazy.flatMap(\.installations).first { $0.pushRegId == pushRegId }
    }

    init(_ state: ReferenceState) {
        persons = state.persons.values.map { p in
            Person(
                id: p.id, applicationId: p.applicationId, externalUserId: p.externalUserId, emails: p.emails,
                phones: p.phones, tags: p.tags, type: p.type,
                installations: p.installations.compactMap { id in
                    state.installations[id].map {
                        Installation(
                            pushRegId: $0.pushRegId, isPrimary: $0.isPrimary, regEnabled: $0.regEnabled,
                            pendingMessageIds: $0.pending.map(\.messageId))
                    }
                })
        }.sorted {
            ($0.applicationId, $0.externalUserId ?? "\u{10FFFF}", $0.id) < (
                $1.applicationId, $1.externalUserId ?? "\u{10FFFF}", $1.id
            )
        }
    }
}

extension ReferenceState {
    /// Every broken invariant, one sentence each.
    func invariantViolations() -> [String] {
        var problems: [String] = []
        var owners: [String: [String]] = [:]
        for person in persons.values {
            if person.installations.count != Set(person.installations).count {
                problems.append("person \(person.id) lists an installation twice")
            }
            for id in person.installations { owners[id, default: []].append(person.id) }
            let primaries = person.installations.filter { installations[$0]?.isPrimary == true }
            if primaries.count > 1 {
                problems.append("person \(person.id) has \(primaries.count) primary devices: \(primaries.sorted())")
            }
            if let ext = person.externalUserId,
                personByExternalId[Self.externalKey(person.applicationId, ext)] != person.id
            {
                problems.append("person \(person.id) has externalUserId '\(ext)' but the index points elsewhere")
            }
        }
        for (id, installation) in installations {
            let listed = owners[id] ?? []
            if listed.count != 1 {
                problems.append("installation \(id) is listed by \(listed.count) persons")
            } else if listed[0] != installation.personId {
                problems.append(
                    "installation \(id) points to person \(installation.personId) but \(listed[0]) lists it")
            }
            if persons[installation.personId] == nil {
                problems.append("installation \(id) points to missing person \(installation.personId)")
            }
        }
        for id in owners.keys where installations[id] == nil {
            problems.append("a person lists missing installation \(id)")
        }
        for (key, personId) in personByExternalId {
            let ext = key.split(separator: "\u{0}", maxSplits: 1).last.map(String.init) ?? key
            if persons[personId]?.externalUserId != ext {
                problems.append("index entry '\(ext)' points to person \(personId), which does not hold it")
            }
        }
        return problems.sorted()
    }
}
