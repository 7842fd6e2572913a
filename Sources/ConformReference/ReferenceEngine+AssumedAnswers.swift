import ConformCore

/// The answers of the `otherAssumedAnswers` variant: where `decisions.md` marks the reference's answer as assumed,
/// answer differently, but still within what the decision makes a MUST.
extension ReferenceEngine {
    /// The refusal a backend that decided D1, D2, D8, D9, D10, D11 and D16 otherwise would send.
    ///
    /// Kept as MUST: a 4xx, the `requestError.serviceException` envelope, the D1 `messageId`s, the backend
    /// D10 `{"errorCode":48013}` and every other backend envelope, and (in ``errorResponse(_:mobile:)``) D15.
    func otherAssumedAnswer(to error: ReferenceError, mobile: Bool) -> ReferenceError {
        guard let messageId = error.messageId else { return error }  // 4800x and E400 envelopes are MUST
        let why = error.text ?? ""
        var answer: ReferenceError
        switch messageId {
        case "UNAUTHORIZED" where error.refusesUserDataAuthorization:
            // D9: status and code assumed.
            answer = .service(403, "FORBIDDEN", "User data authorization failed. \(why)")
        case "UNAUTHORIZED" where mobile:
            // D11: 401 and the envelope are MUST, the messageId assumed; this is the iOS SDK fixture's answer.
            answer = .service(401, "1", "Invalid Application Id")
        case "UNAUTHORIZED":
            // D11 on the backend: the OpenAPI document names UNAUTHORIZED, so only the text changes.
            answer = .service(401, "UNAUTHORIZED", "Invalid login details")
        case "USER_DATA_RESTRICTED" where mobile:
            // D8: which calls are refused is MUST, the exact code assumed.
            answer = .service(
                401, "UNAUTHORIZED", "Changing user data from the mobile SDK is not authorized for this application.")
        case "NO_REGISTRATION" where mobile:
            // D10 on the mobile API is assumed; "7" is the legacy INVALID_INTERNAL_REGISTRATION_ID.
            answer = .service(404, "7", "Invalid internal registration id")
        case "FORBIDDEN" where mobile:
            // D16: a 4xx is all the suites may ask; hide the installation instead of refusing.
            answer = .service(404, "NOT_FOUND", "No such installation for this caller.")
        case _ where mobile && Self.conflictMessageIds.contains(messageId):
            // D1 and D2: the messageId is MUST, the status assumed.
            answer = .service(409, messageId, why)
        case _ where mobile && Self.validationMessageIds.contains(messageId):
            answer = .service(422, messageId, why)
        default:
            return error
        }
        answer.headers = error.headers
        return answer
    }

    static let conflictMessageIds: Set<String> = [
        "USER_MERGE_INTERRUPTED", "AMBIGUOUS_PERSONALIZE_CANDIDATES", "PERSONALIZATION_IMPOSSIBLE",
    ]
    static let validationMessageIds: Set<String> = [
        "USER_IDENTITY_INVALID", "EMAIL_INVALID", "PHONE_INVALID", "REQUEST_FORMAT_INVALID",
    ]

    /// The HTTP status of a push request (B6–B8): D17 makes 2xx a MUST but the exact status assumed, so the
    /// variant answers 202 when the request reached no device at all.
    func pushStatus(reachedAnyDevice: Bool) -> HTTPStatus {
        has(.otherAssumedAnswers) && !reachedAnyDevice ? 202 : 200
    }

    /// The v2 bulk status of a push that reaches no device (D7, D17: accepted, reaches no device; the name assumed).
    ///
    /// The variant answers D7 and D17 with another HTTP status (``pushStatus(reachedAnyDevice:)``) and keeps this
    /// report: a pending report for a push that reaches nobody is what ``ReferenceFault/noDestinationReportedAccepted``
    /// does (which the fault matrix shows flagged only as an assumption), so a variant giving it too would make the
    /// two one behaviour and hide the fault under the variant.
    var noDestinationStatusV2: JSONValue {
        has(.noDestinationReportedAccepted) ? PushStatus.pendingAccepted : PushStatus.noDestination
    }

    /// The v3 message status of a destination that reaches no device.
    var noDestinationStatusV3: JSONValue {
        has(.noDestinationReportedAccepted) ? PushStatus.pendingEnroute : PushStatus.noDestination
    }

    /// The answer to a depersonalize (M6) that found nothing to do: D5 makes repeating it harmless, the status
    /// assumed, so the variant answers 204.
    func repeatedDepersonalizeResponse() -> HTTPResponse {
        has(.otherAssumedAnswers) ? HTTPResponse(status: 204) : .empty(200)
    }
}
