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
        // The names `Connection` lists (`keep-alive` at most, mostly): kept as written, compared without case, so
        // no name of a message is lower-cased or hashed on a proxy's every exchange.
        var named: [String] = []
        for field in fields where HTTPFields.sameName(field.name, "Connection") {
            for token in field.value.split(separator: ",") { named.append(String(token.trimmingWhitespace)) }
        }
        func belongsToTheConnection(_ name: String) -> Bool {
            let length = name.utf8.count
            // Most names have a length no connection-specific name has: no comparison for them.
            let listed = length < 64 && (Self.connectionSpecificLengths >> UInt64(length)) & 1 != 0
            return (listed && Self.connectionSpecificList.contains { HTTPFields.sameName($0, name) })
                || named.contains { HTTPFields.sameName($0, name) }
        }
        // One pass: the fields are copied only from the first one that goes (a request always has `Host`).
        var kept: [Field]?
        for index in fields.indices {
            let goes = belongsToTheConnection(fields[index].name)
            if kept == nil {
                guard goes else { continue }
                var before = Array(fields[..<index])
                before.reserveCapacity(fields.count - 1)
                kept = before
            } else if !goes {
                kept?.append(fields[index])
            }
        }
        return kept.map { HTTPFields($0) } ?? self
    }

    private static let connectionSpecificList = Array(connectionSpecific)
    /// The lengths of the ``connectionSpecific`` names, one bit each.
    private static let connectionSpecificLengths: UInt64 = connectionSpecific.reduce(0) {
        $0 | (1 << UInt64($1.utf8.count))
    }
}
