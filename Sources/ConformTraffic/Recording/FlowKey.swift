import ConformCore
import Foundation

/// Derives the device flow an exchange belongs to, so that replay can keep each device's calls in order.
public enum FlowKey {
    /// The `pushregistrationid` header; for a registration, the `pushRegId` it returned; for backend calls,
    /// the pushRegId in the path or `backend`.
    public static func derive(request: HTTPRequest, response: HTTPResponse?) -> String {
        let path = request.path
        if path.hasPrefix("/people/") || path.hasPrefix("/push/") {
            return backendPushRegId(inPath: path) ?? RecordedExchange.backendFlow
        }
        if let header = request.headerFields["pushregistrationid"], !header.isEmpty { return header }
        if let response, let body = JSONValue.parsedBody(response.body), let id = body["pushRegId"]?.stringValue,
            !id.isEmpty
        {
            return id
        }
        if let id = mobilePushRegId(inPath: path) { return id }
        return "anonymous"
    }

    /// The `{pushRegId}` of `/people/2/contactInformation/push/{pushRegId}[/…]`.
    static func backendPushRegId(inPath path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count >= 5, parts[0] == "people", parts[2] == "contactInformation", parts[3] == "push" else {
            return nil
        }
        return percentDecode(parts[4])
    }

    /// The `{id}` of `/mobile/1/appinstance/{id}[/…]`.
    static func mobilePushRegId(inPath path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count >= 4, parts[0] == "mobile", parts[2] == "appinstance" else { return nil }
        return percentDecode(parts[3])
    }
}
