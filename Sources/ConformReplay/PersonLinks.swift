import ConformCore
import ConformTraffic
import Foundation

/// Tracks which flow last touched each person, so that exchanges of devices sharing a person replay in recorded order.
///
/// Two devices logged in as the same user are not independent: one device's update shows in the other's reads
/// (`instances`, attributes). An exchange that names a person (an `externalUserId` or `externalId` in its request or
/// recorded response) last touched by another flow must therefore wait for everything before it. An exchange that
/// names no person still touches the person its device was last seen with: a read of the device's registration
/// (`isPrimary`) changes when another device of that person becomes primary.
struct PersonLinks {
    private var lastFlow: [String: String] = [:]
    /// The person each device flow last named, bounded like ``lastFlow`` by the persons and devices a trace holds.
    private var personOfFlow: [String: String] = [:]

    /// Records that `exchange` touched its persons; returns whether another flow touched one of them before.
    mutating func crossesFlows(_ exchange: RecordedExchange) -> Bool {
        var crosses = false
        var persons = Self.persons(in: exchange.request.body) + Self.persons(in: exchange.response.body)
        if let last = persons.last {
            personOfFlow[exchange.flow] = last
        } else if let person = personOfFlow[exchange.flow] {
            persons = [person]
        }
        for person in persons {
            if let last = lastFlow[person], last != exchange.flow { crosses = true }
            lastFlow[person] = exchange.flow
        }
        return crosses
    }

    private static let keys: [[UInt8]] = [Array("\"externalUserId\"".utf8), Array("\"externalId\"".utf8)]

    /// The string values of `externalUserId` and `externalId` members anywhere in a JSON body, found without parsing.
    ///
    /// Over-matching (the key inside a string) only adds ordering, never removes it; a value with escapes is taken
    /// raw, which still names the same person consistently.
    static func persons(in body: Data) -> [String] {
        guard body.count > 12 else { return [] }
        return body.withUnsafeBytes { raw -> [String] in
            let bytes = raw.bindMemory(to: UInt8.self)
            var out: [String] = []
            var i = 0
            while i < bytes.count {
                guard bytes[i] == UInt8(ascii: "\"") else {
                    i += 1
                    continue
                }
                guard let key = keys.first(where: { matches($0, bytes, at: i) }) else {
                    i += 1
                    continue
                }
                var j = i + key.count
                while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 || bytes[j] == 0x0A || bytes[j] == 0x0D {
                    j += 1
                }
                guard j < bytes.count, bytes[j] == UInt8(ascii: ":") else {
                    i = j
                    continue
                }
                j += 1
                while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 || bytes[j] == 0x0A || bytes[j] == 0x0D {
                    j += 1
                }
                guard j < bytes.count, bytes[j] == UInt8(ascii: "\"") else {
                    i = j
                    continue
                }
                let start = j + 1
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                if end > start, end <= bytes.count {
                    out.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
                }
                i = end + 1
            }
            return out
        }
    }

    private static func matches(_ key: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        guard i + key.count <= bytes.count else { return false }
        for k in 0..<key.count where bytes[i + k] != key[k] { return false }
        return true
    }
}
