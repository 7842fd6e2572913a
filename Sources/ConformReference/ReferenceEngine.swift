import ConformCore
import Foundation

/// The protocol logic: one request in, one response out, against state the caller keeps locked.
struct ReferenceEngine: Sendable {
    let configuration: ReferenceConfiguration
    let faults: Set<ReferenceFault>
    let variants: Set<ReferenceVariant>
    let now: @Sendable () -> Date

    func has(_ fault: ReferenceFault) -> Bool { faults.contains(fault) }
    func has(_ variant: ReferenceVariant) -> Bool { variants.contains(variant) }

    func handle(_ request: HTTPRequest, state: inout ReferenceState) -> HTTPResponse {
        // The path and its route, found once for the whole request.
        let path = request.path
        let route = ReferenceRoute(path: path)
        var response: HTTPResponse
        do {
            response = try dispatch(request, path: path, route: route, state: &state)
        } catch {
            response = errorResponse(error, mobile: route?.isMobile ?? true)
        }
        // Variant noContent: a void mobile endpoint's success is a 204 without a body (its answer is a 2xx the SDK
        // ignores); the backend's B4 is documented as 200.
        if has(.noContent), (200..<300).contains(response.status.code), route?.isMobile == true,
            ReferenceEndpoint.matching(method: request.effectiveMethod, path: path)?.answersWithBody == false
        {
            response = HTTPResponse(status: 204)
        }
        // §1.1: a mobile response may move the SDK to another base URL.
        if route?.isMobile == true {
            if has(.newBaseURLNotAbsolute) {
                response.headerFields["New-Base-URL"] = "/mobile"
            } else if has(.newBaseURL) {
                response.headerFields["New-Base-URL"] = origin(of: request)
            }
        }
        return response
    }

    /// The base URL a request came to: its URL's origin, else `http://` and its `Host`, else the configured one.
    func origin(of request: HTTPRequest) -> String {
        let origin = URLParts(request.url).origin
        if !origin.isEmpty { return origin }
        if let host = request.headerFields["Host"], !host.isEmpty { return "http://\(host)" }
        return configuration.baseURL
    }

    /// Renders an error of the mobile or backend API, honouring the `otherAssumedAnswers` variant and the D15 faults.
    func errorResponse(_ error: ReferenceError, mobile: Bool) -> HTTPResponse {
        let error = has(.otherAssumedAnswers) ? otherAssumedAnswer(to: error, mobile: mobile) : error
        var response = error.response
        if has(.errorWithoutContentLength) {
            // Sent chunked, so the header is missing on the wire too: a server adds it to any other response.
            response.headerFields.remove("Content-Length")
            response.headerFields["Transfer-Encoding"] = "chunked"
        }
        if has(.errorAsPlainText) { response.headerFields["Content-Type"] = "text/plain" }
        return response
    }

    private func dispatch(
        _ request: HTTPRequest, path: String, route: ReferenceRoute?, state: inout ReferenceState
    ) throws(ReferenceError) -> HTTPResponse {
        guard let route else { throw .service(404, "NOT_FOUND", "No endpoint at '\(path)'.") }
        // D14: POST + X-HTTP-Method-Override: PATCH is PATCH.
        let method = has(.methodOverrideIgnored) ? request.method : request.effectiveMethod
        guard route.methods.contains(method) else {
            var error = ReferenceError.service(
                405, "METHOD_NOT_ALLOWED",
                "\(method) is not allowed on '\(path)'; use \(route.methods.map(\.rawValue).joined(separator: ", "))."
            )
            error.headers["Allow"] = route.methods.map(\.rawValue).joined(separator: ", ")
            throw error
        }
        switch (route, method) {
        case (.register, _): return try register(request, state: &state)
        case (.installation(let id), .get): return try getInstallation(id, request, state: &state)
        case (.installation(let id), .patch): return try patchInstallation(id, request, state: &state)
        case (.installation(let id), _): return try deleteInstallation(id, request, state: &state)
        case (.personalize(let id), _): return try personalize(id, request, state: &state)
        case (.repersonalize(let id), _): return try repersonalize(id, request, state: &state)
        case (.depersonalize(let id), _): return try depersonalize(id, request, state: &state)
        case (.user(let id), .get): return try getUser(id, request, state: &state)
        case (.user(let id), _): return try patchUser(id, request, state: &state)
        case (.session(let id), _): return try sessionReport(id, request, state: &state)
        case (.customEvents(let id), _): return try customEvents(id, request, state: &state)
        case (.baseURL, _): return try baseURL(request)
        case (.messageSync, _): return try messageSync(request, state: &state)
        case (.deliveryReport, _): return try deliveryReport(request, state: &state)
        case (.seen, _): return try seenReport(request, state: &state)
        case (.pushInstance(let id), .get): return try getPushInstance(id, request, state: &state)
        case (.pushInstance(let id), _): return try patchPushInstance(id, request, state: &state)
        case (.backendPersonalize(let id), _): return try backendPersonalize(id, request, state: &state)
        case (.backendDepersonalize(let id), _): return try backendDepersonalize(id, request, state: &state)
        case (.persons, _): return try getPerson(request, state: &state)
        case (.pushSingle, _): return try pushSingle(request, state: &state)
        case (.pushMulti, _): return try pushMulti(request, state: &state)
        case (.pushV3, _): return try pushV3(request, state: &state)
        }
    }
}

// MARK: - Request helpers

extension ReferenceEngine {
    /// The JSON body, `nil` when empty; `REQUEST_FORMAT_INVALID` (or `invalid`) when it does not parse.
    func jsonBody(
        _ request: HTTPRequest, invalid: (String) -> ReferenceError = ReferenceError.requestFormat
    ) throws(ReferenceError) -> JSONValue? {
        if request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return nil }
        do {
            return try JSONValue.parse(request.body, maxDepth: 64)
        } catch {
            throw invalid("Request body is not valid JSON: \(error.description).")
        }
    }

    /// The JSON body as an object; an empty body is `{}`.
    func objectBody(
        _ request: HTTPRequest, invalid: (String) -> ReferenceError = ReferenceError.requestFormat
    ) throws(ReferenceError) -> JSONObject {
        guard let value = try jsonBody(request, invalid: invalid) else { return JSONObject() }
        guard let object = value.objectValue else { throw invalid("Request body must be a JSON object.") }
        return object
    }

    /// A boolean query parameter: `true`/`false` and `1`/`0` (D13); absent or empty is false.
    func queryBool(_ request: HTTPRequest, _ name: String) throws(ReferenceError) -> Bool {
        guard let raw = request.queryValue(name), !raw.isEmpty else { return false }
        switch raw.lowercased() {
        case "true": return true
        case "1": return !has(.numericBooleansIgnored)
        case "false", "0": return false
        default:
            throw .requestFormat("Query parameter '\(name)' must be true, false, 1 or 0, not '\(raw)'.")
        }
    }

    /// The current time in epoch milliseconds.
    var nowMillis: Int { Int((now().timeIntervalSince1970 * 1000).rounded()) }
}
