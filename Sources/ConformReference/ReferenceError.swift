import ConformCore
import ConformMobileMessaging

/// A refused request: status plus one of the protocol's three error envelopes.
struct ReferenceError: Error, Sendable {
    var status: HTTPStatus
    var body: JSONValue
    var headers: HTTPFields = [:]
    /// Whether this is a D9 refusal (user-data authorization in a JWT profile) rather than a D11 credential one.
    var refusesUserDataAuthorization = false

    /// `requestError.serviceException.messageId`, when the body is the standard envelope.
    var messageId: String? { MobileMessaging.errorEnvelope.read(body)?.code }
    /// `requestError.serviceException.text`, when the body is the standard envelope.
    var text: String? { MobileMessaging.errorEnvelope.read(body)?.text }

    /// The standard Infobip envelope `{"requestError":{"serviceException":{"messageId","text"}}}` (§7.1), the
    /// profile's ``MobileMessaging/errorEnvelope``.
    static func service(_ status: HTTPStatus, _ messageId: String, _ text: String) -> ReferenceError {
        ReferenceError(status: status, body: MobileMessaging.errorEnvelope.body(messageId, text))
    }

    /// The People push-endpoint envelope `{"errorCode":48013,"errorMessage":…}` (§7.2, 400 only).
    static func people(_ code: Int, _ message: String) -> ReferenceError {
        ReferenceError(status: 400, body: ["errorCode": .int(code), "errorMessage": .string(message)])
    }

    /// The Push v3 `E400` violations envelope (§4.5).
    static func e400(_ description: String, violations: [(property: String, violation: String)]) -> ReferenceError {
        ReferenceError(
            status: 400,
            body: [
                "errorCode": "E400", "description": .string(description),
                "action": "Check the syntax, violations and adjust the request.",
                "violations": .array(
                    violations.map { ["property": .string($0.property), "violation": .string($0.violation)] }),
                "resources": [],
            ])
    }

    // D1: mobile business and validation errors are 400 with the standard envelope.
    static func noRegistration(_ id: String) -> ReferenceError {
        .service(400, "NO_REGISTRATION", "No registration found for pushRegistrationId '\(id)'.")
    }
    static func requestFormat(_ why: String) -> ReferenceError { .service(400, "REQUEST_FORMAT_INVALID", why) }
    static func unauthorized(_ why: String) -> ReferenceError { .service(401, "UNAUTHORIZED", why) }
    /// D9: a user-data call of a JWT profile without a valid token.
    static func jwtRefused(_ why: String) -> ReferenceError {
        var error = ReferenceError.unauthorized(why)
        error.refusesUserDataAuthorization = true
        return error
    }
    static func forbidden(_ why: String) -> ReferenceError { .service(403, "FORBIDDEN", why) }
    static let userDataRestricted = ReferenceError.service(
        403, "USER_DATA_RESTRICTED", "User data changes from the mobile SDK are disabled for this application profile.")
    static func mergeInterrupted(_ why: String) -> ReferenceError { .service(400, "USER_MERGE_INTERRUPTED", why) }

    /// The response, with `Content-Type: application/json` and `Content-Length` (D15).
    var response: HTTPResponse { HTTPResponse.json(status, body, headers: headers) }
}
