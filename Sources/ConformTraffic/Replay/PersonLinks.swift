import ConformCore
import Foundation

/// Tracks which flow last touched each person, so that exchanges of devices sharing a person replay in recorded order.
///
/// Two devices logged in as the same user are not independent: one device's update shows in the other's reads
/// (`instances`, attributes). An exchange that names a person (an `externalUserId` or `externalId` in its request or
/// recorded response) last touched by another flow must therefore wait for everything before it.
struct PersonLinks {
    private var lastFlow: [String: String] = [:]

    /// Records that `exchange` touched its persons; returns whether another flow touched one of them before.
    mutating func crossesFlows(_ exchange: RecordedExchange) -> Bool {
        var crosses = false
        for person in Self.persons(in: exchange) {
            if let last = lastFlow[person], last != exchange.flow { crosses = true }
            lastFlow[person] = exchange.flow
        }
        return crosses
    }

    /// External user ids named by the request body (`userIdentity`, `identity`) or the recorded response body.
    static func persons(in exchange: RecordedExchange) -> [String] {
        var out: [String] = []
        for body in [exchange.request.body, exchange.response.body] where mentionsExternal(body) {
            guard let json = try? JSONValue.parse(body) else { continue }
            for candidate in [json, json["userIdentity"], json["identity"]] {
                for key in ["externalUserId", "externalId"] {
                    if let id = candidate?[key]?.stringValue, !id.isEmpty { out.append(id) }
                }
            }
        }
        return out
    }

    /// A cheap byte search for `"external`, so bodies that name no person are not parsed.
    private static func mentionsExternal(_ body: Data) -> Bool {
        let needle = Array("\"external".utf8)
        return body.withUnsafeBytes { raw -> Bool in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard bytes.count >= needle.count else { return false }
            var i = 0
            let last = bytes.count - needle.count
            while i <= last {
                if bytes[i] == needle[0] {
                    var j = 1
                    while j < needle.count, bytes[i + j] == needle[j] { j += 1 }
                    if j == needle.count { return true }
                }
                i += 1
            }
            return false
        }
    }
}
