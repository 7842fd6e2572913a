import Foundation

extension HTTPFields {
    /// The fields that belong to one connection, not to the message (RFC 9110 section 7.6.1), plus `Host` and
    /// `Content-Length`, which the transport sets for the connection it opens: never relayed or replayed.
    public static let connectionSpecific: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer",
        "transfer-encoding", "upgrade", "host", "content-length",
    ]

    /// The fields without those of the connection they came on: ``connectionSpecific`` and every field the
    /// `Connection` header names.
    public var endToEnd: HTTPFields {
        var named: Set<String> = []
        for value in values(for: "Connection") {
            for token in value.split(separator: ",") {
                named.insert(token.trimmingWhitespace.lowercased())
            }
        }
        func belongsToTheConnection(_ name: String) -> Bool {
            // Most names are none of the few connection-specific ones: compare without lower-casing first.
            let specific = Self.connectionSpecificList.contains { HTTPFields.sameName($0, name) }
            return specific || (!named.isEmpty && named.contains(name.lowercased()))
        }
        guard fields.contains(where: { belongsToTheConnection($0.name) }) else { return self }
        return HTTPFields(fields.filter { !belongsToTheConnection($0.name) })
    }

    private static let connectionSpecificList = Array(connectionSpecific)
}
