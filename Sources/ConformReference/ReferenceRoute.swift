import ConformCore

/// The endpoints the reference answers, recognised from the request path alone (scheme and host are ignored).
enum ReferenceRoute: Sendable, Hashable {
    case register  // M1
    case installation(String)  // M2, M3, M11
    case personalize(String)  // M4
    case repersonalize(String)  // M5
    case depersonalize(String)  // M6
    case user(String)  // M7, M8
    case session(String)  // M9
    case customEvents(String)  // M10
    case baseURL  // M12
    case messageSync  // M14
    case deliveryReport  // M15
    case seen  // M16
    case pushInstance(String)  // B1, B2
    case backendPersonalize(String)  // B3
    case backendDepersonalize(String)  // B4
    case persons  // B5
    case pushSingle  // B6
    case pushMulti  // B7
    case pushV3  // B8

    /// The route for `path`, or `nil` when no endpoint lives there.
    init?(path: String) {
        var segments = Substring(path).utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map {
            percentDecode(Substring($0))
        }
        if segments.last == "" { segments.removeLast() }
        switch segments.count {
        case 3 where segments == ["mobile", "1", "appinstance"]: self = .register
        case 3 where segments == ["mobile", "1", "baseurl"]: self = .baseURL
        case 3 where segments == ["mobile", "5", "messages"]: self = .messageSync
        case 3 where segments == ["people", "2", "persons"]: self = .persons
        case 3 where segments == ["push", "3", "messages"]: self = .pushV3
        case 4 where segments == ["mobile", "1", "messages", "deliveryreport"]: self = .deliveryReport
        case 4 where segments == ["mobile", "2", "messages", "seen"]: self = .seen
        case 4 where segments == ["push", "2", "message", "single"]: self = .pushSingle
        case 4 where segments == ["push", "2", "message", "multi"]: self = .pushMulti
        case 4 where segments.starts(with: ["mobile", "1", "appinstance"]): self = .installation(segments[3])
        case 5 where segments.starts(with: ["mobile", "1", "appinstance"]):
            let id = segments[3]
            switch segments[4] {
            case "personalize": self = .personalize(id)
            case "repersonalize": self = .repersonalize(id)
            case "depersonalize": self = .depersonalize(id)
            case "user": self = .user(id)
            default: return nil
            }
        case 7 where segments.starts(with: ["mobile", "1", "appinstance"]) && segments[4...5] == ["user", "events"]:
            switch segments[6] {
            case "session": self = .session(segments[3])
            case "custom": self = .customEvents(segments[3])
            default: return nil
            }
        case 5 where segments.starts(with: ["people", "2", "contactInformation", "push"]):
            self = .pushInstance(segments[4])
        case 6 where segments.starts(with: ["people", "2", "contactInformation", "push"]):
            switch segments[5] {
            case "personalize": self = .backendPersonalize(segments[4])
            case "depersonalize": self = .backendDepersonalize(segments[4])
            default: return nil
            }
        default: return nil
        }
    }

    /// The methods the endpoint accepts.
    var methods: [HTTPMethod] {
        switch self {
        case .installation: [.get, .patch, .delete]
        case .user, .pushInstance: [.get, .patch]
        case .baseURL, .persons: [.get]
        default: [.post]
        }
    }

    /// Whether the endpoint belongs to the mobile API (else the backend API).
    var isMobile: Bool {
        switch self {
        case .pushInstance, .backendPersonalize, .backendDepersonalize, .persons, .pushSingle, .pushMulti, .pushV3:
            false
        default: true
        }
    }
}
