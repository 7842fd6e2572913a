import ConformCore
import Foundation

/// The identity a personalize names: an externalUserId, and phones and emails as `phone:<digits>` / `email:<lower>`.
struct Identity: Sendable, Hashable {
    var externalUserId: String?
    var identifiers: [String] = []

    /// A mobile `userIdentity` (or a PATCH user body): `externalUserId`, `phones[].number`, `emails[].address`.
    init(mobile value: JSONValue?) {
        if let id = value?["externalUserId"]?.stringValue, !id.isEmpty { externalUserId = id }
        for phone in value?["phones"]?.arrayValue ?? [] {
            if let key = Self.phone(phone["number"]?.stringValue) { identifiers.append(key) }
        }
        for email in value?["emails"]?.arrayValue ?? [] {
            if let key = Self.email(email["address"]?.stringValue) { identifiers.append(key) }
        }
    }

    /// A backend `identity`: `externalId` (the text "null" is JSON null), `phoneNumber`, `email`.
    init(backend value: JSONValue?) {
        if let id = value?["externalId"]?.stringValue, !id.isEmpty, id.lowercased() != "null" { externalUserId = id }
        if let key = Self.phone(value?["phoneNumber"]?.stringValue) { identifiers.append(key) }
        if let key = Self.email(value?["email"]?.stringValue) { identifiers.append(key) }
    }

    static func phone(_ text: String?) -> String? {
        let digits = (text ?? "").filter { ("0"..."9").contains($0) }
        return digits.isEmpty ? nil : "phone:\(digits)"
    }

    static func email(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return "email:\(text.lowercased())"
    }
}

/// A personalize (Mobile Messaging's M4, M5, B3) of one device.
struct Personalization {
    var device: String
    var identity: Identity
    /// `forceDepersonalize=true`; a repersonalize (M5) has no query and never forces.
    var force: Bool
    var primary: Bool
    /// Whether the endpoint takes the query that forces (not a repersonalize).
    var canForce: Bool
    /// The externalUserId a successful response names (the person the device joined).
    var responseUser: String?
    var endpoint: String
}

extension FlowChecker {
    func personalization(_ call: Call) -> Personalization? {
        let id = call.endpoint.id
        guard call.endpoint.isPersonalize, let device = call.target else { return nil }
        let body = call.body
        let backend = call.endpoint.isBackend
        let identity = backend ? Identity(backend: body?["identity"]) : Identity(mobile: body?["userIdentity"])
        var responseUser: String?
        if call.succeeded, let response = call.responseBody {
            responseUser = (backend ? response["externalId"] : response["externalUserId"])?.stringValue
            if responseUser?.isEmpty == true { responseUser = nil }
        }
        let request = call.exchange.request
        let canForce = call.endpoint.canForce
        return Personalization(
            device: device, identity: identity, force: canForce && queryFlag(request, "forceDepersonalize"),
            primary: canForce && queryFlag(request, "setDeviceAsPrimary"), canForce: canForce,
            responseUser: responseUser, endpoint: id)
    }

    /// The externalUserId of the person a personalize names: the request's, else the successful response's, else
    /// the owner the trace showed for one of its phones or emails; `nil` when the trace cannot tell.
    func resolve(_ p: Personalization) -> String? {
        p.identity.externalUserId ?? p.responseUser ?? p.identity.identifiers.lazy.compactMap { owners[$0] }.first
    }

    /// `user-switch`: a device the trace shows personalized to one user is moved to another without force.
    mutating func checkUserSwitch(_ call: Call, _ findings: inout Findings) {
        if let p = personalization(call) {
            guard let device = devices[p.device], device.personalized == true, let current = device.externalUserId,
                let next = resolve(p)
            else { return }
            // The trace shows who the device belongs to and who it goes to: the rule judges this call.
            exercise(.userSwitch)
            guard next != current, !p.force else { return }
            let how = p.identity.externalUserId == nil ? " (by its phone or email)" : ""
            let what = p.canForce ? "personalize" : "repersonalize (\(p.endpoint) cannot force)"
            findings.report(
                .userSwitch,
                "\(what) to '\(next)'\(how) on a device personalized to '\(current)' without forceDepersonalize=true and no depersonalize in between"
            )
        } else if call.endpoint.updatesUser, let target = call.target,
            let next = call.body?["externalUserId"]?.stringValue, !next.isEmpty,
            let current = devices[target]?.externalUserId, devices[target]?.personalized == true
        {
            exercise(.userSwitch)
            guard next != current else { return }
            findings.report(
                .userSwitch,
                "PATCH user changes externalUserId from '\(current)' to '\(next)': another user's login is a personalize with forceDepersonalize=true"
            )
        }
    }
}
