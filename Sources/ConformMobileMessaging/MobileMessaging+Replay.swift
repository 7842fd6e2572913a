import ConformCore

/// Where Mobile Messaging's exchanges name persons, and what its answers hold that changes on every run.
extension MobileMessaging {
    /// The mobile `userIdentity` (`externalUserId`, `phones[].number`, `emails[].address`), the backend `identity`
    /// and People records (`externalId`, `email`, `phoneNumber`, `contactInformation`), push targets
    /// (`to.externalUserId`, `destinations[].externalUserId`), the People lookup's `identifier`; and the send time
    /// of a synced push (`sendDateTime`, inside the GCM payload's embedded `internalData`); the ids the server
    /// mints: registrations (kept for the whole replay), messages and bulks.
    public static let replay = ProtocolProfile.ReplayKeys(
        identityFields: [
            field("$..externalUserId", .opaque), field("$..externalId", .opaque),
            field("$..emails[*].address", .email), field("$..emails[*]", .email), field("$..email", .email),
            field("$..phones[*].number", .phone), field("$..phones[*]", .phone), field("$..phoneNumber", .phone),
        ],
        identityParameters: ["identifier": .byShape, "externalUserId": .opaque],
        volatileValues: [
            ProtocolProfile.VolatileValue(JSONPathPattern("$..sendDateTime")!, "time the push was sent")
        ],
        minted: ProtocolProfile.MintedIdentifiers(
            keys: [
                "pushRegId", "pushRegistrationId", "registrationId", "messageId", "bulkId",
                "gcm.notification.messageId",
            ],
            durable: ["pushRegId", "pushRegistrationId", "registrationId"]))

    private static func field(_ path: String, _ kind: ProtocolProfile.IdentityKind) -> ProtocolProfile.IdentityField {
        ProtocolProfile.IdentityField(JSONPathPattern(path)!, kind)
    }
}
