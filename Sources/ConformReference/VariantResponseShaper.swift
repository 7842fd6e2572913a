import ConformCore
import Foundation

/// Applies the variants that change a finished response rather than the protocol logic: extra members, list
/// order, JSON layout, chunking, `Connection: close` and header case.
struct VariantResponseShaper: Sendable {
    let variants: Set<ReferenceVariant>

    /// Members whose objects are user data: adding a member there would change what the user stored.
    /// `to` is the echo of the request's push filter.
    static let userDataKeys: Set<String> = ["customAttributes", "customPayload", "additionalData", "to"]

    /// The extra members of the `extraMembers` variant: a string everywhere, an object where values are not all strings.
    static let extraString: (key: String, value: JSONValue) = ("vendorTrace", "conform-variant-7f3a")
    static let extraObject: (key: String, value: JSONValue) = (
        "vendorExtensions", ["region": "conform-1", "retryable": false, "hops": 2]
    )

    func shape(_ response: HTTPResponse, now: Date) -> HTTPResponse {
        var response = response
        if variants.contains(.extraMembers) || variants.contains(.otherListOrder) || variants.contains(.otherJSONStyle)
        {
            reshapeBody(of: &response)
        }
        if variants.contains(.chunked), (200..<300).contains(response.status.code), response.status.code != 204 {
            // Errors keep Content-Length (D15); a 204 has neither header nor body.
            response.headerFields.remove("Content-Length")
            response.headerFields["Transfer-Encoding"] = "chunked"
        }
        if variants.contains(.connectionClose) { response.headerFields["Connection"] = "close" }
        if variants.contains(.headerCase) {
            var fields = response.headerFields.fields.reversed().map {
                HTTPFields.Field(name: $0.name.lowercased(), value: $0.value)
            }
            fields.append(HTTPFields.Field(name: "date", value: Self.httpDate(now)))
            response.headerFields = HTTPFields(fields)
        }
        return response
    }

    /// The JSON body with the extra members, the list order and the layout of the variants switched on.
    private func reshapeBody(of response: inout HTTPResponse) {
        guard !response.body.isEmpty, var value = try? JSONValue.parse(response.body) else { return }
        if variants.contains(.extraMembers) { value = Self.addingExtraMembers(value, key: nil) }
        if variants.contains(.otherListOrder) { value = Self.reversingUnorderedLists(value, key: nil) }
        let text = variants.contains(.otherJSONStyle) ? Self.otherStyle(value) : value.serialized()
        response.body = Data(text.utf8)
        if response.headerFields.contains("Content-Length") {
            response.headerFields["Content-Length"] = String(response.body.count)
        }
    }

    /// `value` with the extra members added to every object at every level, except inside user-data maps.
    ///
    /// An object whose members are all strings (a GCM payload, an FCM data map) gets only the string member.
    static func addingExtraMembers(_ value: JSONValue, key: String?) -> JSONValue {
        reshaping(value, key: key) { object in
            let flat = !object.isEmpty && object.allSatisfy { $0.value.stringValue != nil }
            var object = object
            object[extraString.key] = extraString.value
            if !flat { object[extraObject.key] = extraObject.value }
            return object
        }
    }

    /// Members whose lists the protocol does not order: a person's devices (M7 `instances`, B5 `push`), message
    /// sync `payloads`, a user's `tags`, `emails` and `phones`, and the v3 answer's `messages` (one per device).
    static let unorderedListKeys: Set<String> = [
        "instances", "push", "payloads", "tags", "emails", "phones", "messages",
    ]

    /// `value` with every unordered list reversed, at every level except inside user-data maps.
    static func reversingUnorderedLists(_ value: JSONValue, key: String?) -> JSONValue {
        let reversed: (String?, [JSONValue]) -> [JSONValue] = { key, items in
            key.map(unorderedListKeys.contains) == true ? items.reversed() : items
        }
        return reshaping(value, key: key, list: reversed)
    }

    /// `value` rebuilt from the leaves up, each object through `object` and each list through `list` (with the
    /// member that holds it), except in user-data maps, which stay as the user stored them: the one walk of the
    /// variants that change a body's shape. A list's items count as held by the list's member.
    private static func reshaping(
        _ value: JSONValue, key: String?, object: (JSONObject) -> JSONObject = { $0 },
        list: (String?, [JSONValue]) -> [JSONValue] = { $1 }
    ) -> JSONValue {
        switch value {
        case .object(let members):
            if let key, userDataKeys.contains(key) { return value }
            var out = JSONObject()
            for (k, v) in members { out[k] = reshaping(v, key: k, object: object, list: list) }
            return .object(object(out))
        case .array(let items):
            return .array(list(key, items.map { reshaping($0, key: key, object: object, list: list) }))
        default:
            return value
        }
    }

    /// Another JSON style for the same value: indented, every object's members in reverse order, `/` written `\/`
    /// and every non-ASCII character as a `\u` escape (both legal only inside strings, so escaping them in the
    /// whole text changes no value), ending in a newline.
    static func otherStyle(_ value: JSONValue) -> String {
        func reversedMembers(_ value: JSONValue) -> JSONValue {
            switch value {
            case .object(let object): .object(JSONObject(object.reversed().map { ($0.0, reversedMembers($0.1)) }))
            case .array(let items): .array(items.map(reversedMembers))
            default: value
            }
        }
        var out = ""
        for scalar in reversedMembers(value).serialized(.pretty).unicodeScalars {
            if scalar == "/" {
                out += "\\/"
            } else if scalar.isASCII {
                out.unicodeScalars.append(scalar)
            } else {
                for unit in String(scalar).utf16 { out += "\\u" + String(format: "%04x", unit) }
            }
        }
        return out + "\n"
    }

    /// An HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func httpDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let c = calendar.dateComponents([.weekday, .day, .month, .year, .hour, .minute, .second], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int?) -> String { n.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(days[((c.weekday ?? 1) - 1) % 7]), \(two(c.day)) \(months[((c.month ?? 1) - 1) % 12]) "
            + "\(c.year ?? 1970) \(two(c.hour)):\(two(c.minute)):\(two(c.second)) GMT"
    }
}
