import ConformCore

/// Which endpoint of the personalization flow a request is (`M1`…`M16`, `B1`…`B8`).
public struct FlowEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The endpoint id of the API reference, e.g. `M4` for mobile personalize.
    public var id: String
    /// The pushRegId in the path, if the path names one.
    public var pathRegistrationId: String?

    public var description: String { id }
    public var isMobile: Bool { id.hasPrefix("M") }
    public var isBackend: Bool { id.hasPrefix("B") }

    /// Mobile calls that need a registration first: M4–M10 and M14.
    public var isUserCall: Bool { ["M4", "M5", "M6", "M7", "M8", "M9", "M10", "M14"].contains(id) }

    /// Calls that carry or reveal personal data from the app: personalize, repersonalize, PATCH user.
    public var sendsPersonalData: Bool { ["M4", "M5", "M8"].contains(id) }

    /// Calls that need `Bearer <JWT>` in JWT mode: M4, M5, M7, M8.
    public var needsJWT: Bool { ["M4", "M5", "M7", "M8"].contains(id) }

    /// Classifies a request by effective method (Android's `X-HTTP-Method-Override` included) and path.
    public static func classify(_ request: HTTPRequest) -> FlowEndpoint? {
        let method = request.effectiveMethod
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map { percentDecode($0) }
        func make(_ id: String, _ reg: String? = nil) -> FlowEndpoint {
            FlowEndpoint(id: id, pathRegistrationId: reg)
        }
        if parts.first == "mobile" {
            if parts.count >= 3, parts[1] == "1", parts[2] == "appinstance" {
                if parts.count == 3 { return method == .post ? make("M1") : nil }
                let id = parts[3]
                switch (method, Array(parts.dropFirst(4))) {
                case (.patch, []): return make("M2", id)
                case (.get, []): return make("M3", id)
                case (.delete, []): return make("M11", id)
                case (.post, ["personalize"]): return make("M4", id)
                case (.post, ["repersonalize"]): return make("M5", id)
                case (.post, ["depersonalize"]): return make("M6", id)
                case (.get, ["user"]): return make("M7", id)
                case (.patch, ["user"]): return make("M8", id)
                case (.post, ["user", "events", "session"]): return make("M9", id)
                case (.post, ["user", "events", "custom"]): return make("M10", id)
                default: return nil
                }
            }
            switch (method, parts) {
            case (.get, ["mobile", "1", "baseurl"]): return make("M12")
            case (.post, ["mobile", "5", "messages"]): return make("M14")
            case (.post, ["mobile", "1", "messages", "deliveryreport"]): return make("M15")
            case (.post, ["mobile", "2", "messages", "seen"]): return make("M16")
            default:
                if parts.count >= 3, parts[1] == "1", parts[2] == "user" { return make("M13") }
                return nil
            }
        }
        if parts.first == "people" {
            if parts.count >= 5, parts[2] == "contactInformation", parts[3] == "push" {
                let id = parts[4]
                switch (method, Array(parts.dropFirst(5))) {
                case (.get, []): return make("B1", id)
                case (.patch, []): return make("B2", id)
                case (.post, ["personalize"]): return make("B3", id)
                case (.post, ["depersonalize"]): return make("B4", id)
                default: return make("B?", id)
                }
            }
            if parts.count >= 3, parts[2] == "persons" { return make("B5") }
            return make("B?")
        }
        if parts.first == "push" {
            switch parts {
            case ["push", "2", "message", "single"]: return make("B6")
            case ["push", "2", "message", "multi"]: return make("B7")
            case ["push", "3", "messages"]: return make("B8")
            default: return make("B?")
            }
        }
        return nil
    }
}

/// Reads a query boolean in either SDK dialect: Android `true`/`false`, iOS `1`/`0`.
func queryFlag(_ request: HTTPRequest, _ name: String) -> Bool {
    guard let value = request.queryValue(name)?.lowercased() else { return false }
    return value == "true" || value == "1"
}
