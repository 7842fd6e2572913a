import ConformCore
import ConformCrypto

/// One push waiting on an installation until message sync hands it out and the device reports it delivered.
struct QueuedMessage: Sendable, Hashable {
    var messageId: String
    var title: String?
    var text: String?
    var sound: String?
    var silent: Bool
    var customPayload: JSONObject?
    var sendDateTime: Int
    var bulkId: String
    /// The person the push was sent to, or `nil` when it named the registration itself (`pushRegistrationId`): a
    /// person's pushes leave a device that changes person with it.
    var forPerson: String? = nil
    /// Epoch milliseconds from which message sync may hand it out (variant `asyncDelivery`; 0 means at once).
    var visibleAt = 0
}

/// A device registration (pushRegId) of one application.
struct Installation: Sendable, Hashable {
    var pushRegId: String
    var applicationId: String
    var personId: String
    var isPrimary = false
    var regEnabled = true
    var notificationsEnabled = true
    /// System data and any other field the SDK reported (os, sdkVersion, pushServiceToken, …).
    var fields = JSONObject()
    var customAttributes = JSONObject()
    /// Pushes not yet reported delivered, oldest first.
    var pending: [QueuedMessage] = []
    /// The latest `visibleAt` given to a push for this device, so deliveries keep their send order.
    var lastVisibleAt = 0
    var sessionReports = 0
    var customEvents = 0
}

/// A person (user) of one application; anonymous until it gets an identity.
struct Person: Sendable, Hashable {
    var id: String
    var applicationId: String
    var externalUserId: String?
    var phones: [String] = []
    var emails: [String] = []
    /// Standard attributes (firstName, lastName, middleName, gender, birthday) as sent.
    var attributes = JSONObject()
    var tags: [String] = []
    var customAttributes = JSONObject()
    var type = "LEAD"
    /// Installation ids in the order they joined.
    var installations: [String] = []
    /// Set only by the `depersonalizeKeepsIdentity` fault: a stale externalUserId GET user still shows.
    var staleExternalUserId: String?

    var isAnonymous: Bool { externalUserId == nil && phones.isEmpty && emails.isEmpty }
}

/// Everything the reference remembers; mutated only under the implementation's lock.
struct ReferenceState: Sendable {
    var installations: [String: Installation] = [:]
    var persons: [String: Person] = [:]
    /// `applicationId + "\u{0}" + externalUserId` → person id.
    var personByExternalId: [String: String] = [:]
    var ids: IdentifierSource
    /// Draws delivery delays (variant `asyncDelivery`); seeded like `ids`, so a seeded run is reproducible.
    var random: SeededRandom

    init(seed: String?) {
        ids = IdentifierSource(seed: seed)
        random = SeededRandom(seed: seed)
    }

    static func externalKey(_ applicationId: String, _ externalUserId: String) -> String {
        applicationId + "\u{0}" + externalUserId
    }

    func person(applicationId: String, externalUserId: String) -> Person? {
        personByExternalId[Self.externalKey(applicationId, externalUserId)].flatMap { persons[$0] }
    }

    /// Persons of `applicationId` holding any of `emails` or `phones`.
    func persons(applicationId: String, emails: [String], phones: [String]) -> [Person] {
        guard !emails.isEmpty || !phones.isEmpty else { return [] }
        let wantedEmails = Set(emails.map { $0.lowercased() })
        let wantedPhones = Set(phones)
        return persons.values.filter { p in
            p.applicationId == applicationId
                && (p.emails.contains { wantedEmails.contains($0.lowercased()) }
                    || p.phones.contains { wantedPhones.contains($0) })
        }.sorted { $0.id < $1.id }
    }

    /// Creates an anonymous person of `applicationId` and returns its id.
    mutating func newAnonymousPerson(applicationId: String) -> String {
        let id = ids.next("person")
        persons[id] = Person(id: id, applicationId: applicationId)
        return id
    }

    /// Moves installation `pushRegId` to person `personId`, clearing its primary flag; drops an emptied anonymous person.
    mutating func move(_ pushRegId: String, to personId: String) {
        guard var installation = installations[pushRegId] else { return }
        let oldId = installation.personId
        if oldId == personId { return }
        if var old = persons[oldId] {
            old.installations.removeAll { $0 == pushRegId }
            if old.installations.isEmpty && old.isAnonymous && old.staleExternalUserId == nil {
                persons[oldId] = nil
            } else {
                persons[oldId] = old
            }
        }
        installation.personId = personId
        // D6: primary is relative to a person, so a device changing persons arrives as non-primary.
        installation.isPrimary = false
        installations[pushRegId] = installation
        persons[personId]?.installations.append(pushRegId)
    }

    /// Sets or clears the primary flag; with `exclusive`, setting it clears the person's other devices (D6).
    mutating func setPrimary(_ pushRegId: String, _ primary: Bool, exclusive: Bool) {
        guard let personId = installations[pushRegId]?.personId else { return }
        if primary && exclusive, let person = persons[personId] {
            for other in person.installations where other != pushRegId { installations[other]?.isPrimary = false }
        }
        installations[pushRegId]?.isPrimary = primary
    }

    /// Removes an installation and, when it leaves an empty anonymous person, that person too.
    mutating func remove(_ pushRegId: String) {
        guard let installation = installations.removeValue(forKey: pushRegId) else { return }
        if var person = persons[installation.personId] {
            person.installations.removeAll { $0 == pushRegId }
            persons[person.id] = person.installations.isEmpty && person.isAnonymous ? nil : person
        }
    }

    /// Gives `personId` the externalUserId `id`, keeping the index in step.
    mutating func setExternalUserId(_ id: String?, of personId: String) {
        guard var person = persons[personId] else { return }
        if let old = person.externalUserId { personByExternalId[Self.externalKey(person.applicationId, old)] = nil }
        person.externalUserId = id
        if let id { personByExternalId[Self.externalKey(person.applicationId, id)] = personId }
        persons[personId] = person
    }
}

/// Unique identifiers, derived from a seed so a seeded run is reproducible.
struct IdentifierSource: Sendable {
    private let seed: [UInt8]
    private var counter = 0
    /// Whether ids are opaque tokens instead of UUIDs (variant `opaqueIds`).
    var opaque = false

    init(seed: String?) {
        self.seed = seed.map { Array($0.utf8) } ?? RandomBytes.generate(count: 16)
    }

    /// A fresh identifier; `kind` keeps ids of different kinds apart.
    ///
    /// UUID-shaped by default. Opaque registrations are 32 letters and digits in mixed case; other opaque ids
    /// are 40 lower-case hex digits.
    /// The characters of an opaque registration id.
    private static let opaqueDigits = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)

    mutating func next(_ kind: String) -> String {
        counter += 1
        // The digest's input, seed NUL kind NUL counter, built in one buffer: one id per registration.
        var input = seed
        input.reserveCapacity(seed.count + kind.utf8.count + 22)
        input.append(0)
        input.append(contentsOf: kind.utf8)
        input.append(0)
        input.append(contentsOf: String(counter).utf8)
        var bytes = SHA256.hash(input)
        if opaque {
            if kind != "registration" { return String(Hex.encode(bytes).prefix(40)) }
            let digits = Self.opaqueDigits
            var token = bytes.map { digits[Int($0) % digits.count] }
            token[0] = digits[36 + Int(bytes[0]) % 26]  // starts with an upper-case letter
            token[1] = digits[10 + Int(bytes[1]) % 26]  // then a lower-case one
            return String(decoding: token, as: UTF8.self)
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return Hex.uuidString(bytes)  // the first 16 bytes
    }
}

/// The core's ``SplitMix64`` seeded from a text: reproducible from a seed, random without one.
struct SeededRandom: RandomNumberGenerator, Sendable {
    private var generator: SplitMix64

    init(seed: String?) {
        let bytes = seed.map { SHA256.hash(Array("random\u{0}\($0)".utf8)) } ?? RandomBytes.generate(count: 8)
        generator = SplitMix64(seed: bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) })
    }

    mutating func next() -> UInt64 { generator.next() }
}
