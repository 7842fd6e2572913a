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
        return HTTPFields(
            fields.filter {
                let name = $0.name.lowercased()
                return !Self.connectionSpecific.contains(name) && !named.contains(name)
            })
    }
}
