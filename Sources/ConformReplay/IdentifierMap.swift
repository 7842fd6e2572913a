import ConformCore
import Foundation

/// Recorded values mapped to the values the live implementation minted in their place (the profile's
/// ``ProtocolProfile/MintedIdentifiers``: Mobile Messaging's pushRegId, messageId, bulkId).
///
/// Durable ids (a device's) are kept for the whole replay; of the others only the most recent ``transientLimit``.
public struct IdentifierMap: Sendable, Hashable {
    public private(set) var mapping: [String: String] = [:]
    /// How many transient ids (message and bulk ids) stay mapped; older ones are forgotten, so memory stays flat.
    public var transientLimit = 65_536
    /// Transient ids in the order they were learned; `transientStart` is the oldest still mapped.
    private var transient: [String] = []
    private var transientStart = 0
    /// Ids with characters outside `[A-Za-z0-9-]`, replaced by substring search (longest first) instead of by token.
    private var irregular: [String] = []
    /// How many mapped ids have each UTF-8 length (the last entry counts every length from ``longKey`` up), so a
    /// token of a length no id has is skipped without building and hashing a string.
    private var keyLengths = [Int](repeating: 0, count: longKey + 1)
    static let longKey = 128
    /// The UTF-8 length of the shortest id mapped (``longKey`` for any longer), `Int.max` with none: a shorter text
    /// holds no id to look for.
    private var shortestKey = Int.max

    public init(_ mapping: [String: String] = [:]) {
        for (k, v) in mapping { set(k, v) }
    }

    public var isEmpty: Bool { mapping.isEmpty }

    /// Maps `recorded` to `live`; ids shorter than 3 characters are ignored (too likely to occur by chance).
    public mutating func set(_ recorded: String, _ live: String) { set(recorded, live, transient: false) }

    mutating func set(_ recorded: String, _ live: String, transient isTransient: Bool) {
        guard recorded != live, recorded.count >= 3 else { return }
        if mapping.updateValue(live, forKey: recorded) == nil {
            keyLengths[min(recorded.utf8.count, Self.longKey)] += 1
            shortestKey = min(shortestKey, recorded.utf8.count, Self.longKey)
            if !recorded.utf8.allSatisfy(Self.isTokenByte) {
                irregular.append(recorded)
                irregular.sort { $0.count > $1.count }
            }
        }
        guard isTransient else { return }
        transient.append(recorded)
        if transient.count - transientStart > transientLimit {
            let oldest = transient[transientStart]
            transientStart += 1
            if mapping.removeValue(forKey: oldest) != nil {
                let length = min(oldest.utf8.count, Self.longKey)
                keyLengths[length] -= 1
                if length == shortestKey, keyLengths[length] == 0 {
                    shortestKey = keyLengths.indices.first { keyLengths[$0] > 0 } ?? Int.max
                }
            }
            irregular.removeAll { $0 == oldest }
            if transientStart > 4096, transientStart * 2 > transient.count {
                transient.removeFirst(transientStart)
                transientStart = 0
            }
        }
    }

    /// Walks recorded and live JSON at the same paths and maps each minted value that differs.
    @discardableResult
    public mutating func learn(
        recorded: JSONValue, live: JSONValue, minted: ProtocolProfile.MintedIdentifiers
    ) -> [(recorded: String, live: String)] {
        var added: [(recorded: String, live: String)] = []
        learn(recorded: recorded, live: live, minted: minted, added: &added)
        return added
    }

    private mutating func learn(
        recorded: JSONValue, live: JSONValue, minted: ProtocolProfile.MintedIdentifiers,
        added: inout [(recorded: String, live: String)]
    ) {
        switch (recorded, live) {
        case (.object(let r), .object(let l)):
            for (key, value) in r {
                guard let other = l[key] else { continue }
                if minted.keys.contains(key), case .string(let a) = value, case .string(let b) = other {
                    if mapping[a] == nil, a != b, a.count >= 3 {
                        set(a, b, transient: !minted.durable.contains(key))
                        added.append((a, b))
                    }
                } else {
                    learn(recorded: value, live: other, minted: minted, added: &added)
                }
            }
        case (.array(let r), .array(let l)):
            for (a, b) in zip(r, l) { learn(recorded: a, live: b, minted: minted, added: &added) }
        case (.string(let r), .string(let l)) where r != l && (r.hasPrefix("{") || r.hasPrefix("[")):
            if let rj = try? JSONValue.parse(r), let lj = try? JSONValue.parse(l) {
                learn(recorded: rj, live: lj, minted: minted, added: &added)
            }
        default:
            break
        }
    }

    /// A byte of an id token, `[A-Za-z0-9-]`: one bit of a 128-bit set, without a branch per range (every byte of
    /// every replayed URL, header value and body is asked).
    @inline(__always)
    static func isTokenByte(_ b: UInt8) -> Bool {
        let word = b < 64 ? tokenBytesBelow64 : (b < 128 ? tokenBytesFrom64 : 0)
        return (word >> UInt64(b & 63)) & 1 != 0
    }

    /// `-` and `0`–`9`.
    private static let tokenBytesBelow64: UInt64 = (1 << 0x2D) | (0x3FF << 0x30)
    /// `A`–`Z` and `a`–`z`, counted from 64.
    private static let tokenBytesFrom64: UInt64 = (0x3FF_FFFF << (0x41 - 64)) | (0x3FF_FFFF << (0x61 - 64))

    /// `text` with every recorded id replaced by its live value; ids match whole `[A-Za-z0-9-]` tokens, in linear time.
    public func apply(_ text: String) -> String {
        guard !mapping.isEmpty else { return text }
        return replacedValue(text) ?? text
    }

    /// `text` with every mapped token replaced; `wholeStrings` turns false when a replaced token is not a whole
    /// JSON string (between two quotes).
    private func apply(_ text: String, wholeStrings: inout Bool) -> String {
        replaced(text, wholeStrings: &wholeStrings) ?? text
    }

    /// `text` with every mapped token replaced, or `nil` when it holds none (and when it is shorter than any id).
    private func replaced(_ text: String, wholeStrings: inout Bool) -> String? {
        guard text.utf8.count >= shortestKey else { return nil }
        let replaced =
            text.utf8.withContiguousStorageIfAvailable { replacingTokens(in: $0, wholeStrings: &wholeStrings) }
            ?? Array(text.utf8).withUnsafeBufferPointer { replacingTokens(in: $0, wholeStrings: &wholeStrings) }
        return replaced.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes with every mapped token replaced, or `nil` when none is mapped (most text holds none, and is
    /// returned as it came). A token is looked up only when some recorded id has its length.
    private func replacingTokens(in utf8: UnsafeBufferPointer<UInt8>, wholeStrings: inout Bool) -> [UInt8]? {
        var splice = ByteSplice()
        forEachMappedToken(in: utf8) { token, live, whole in
            splice.replace(token, of: utf8, with: live.utf8)
            if !whole { wholeStrings = false }
        }
        return splice.result(utf8)
    }

    /// Calls `body` with each token of `utf8` that is a mapped id, its live value, and whether it is a whole JSON
    /// string (between two quotes). A token is looked up only when some recorded id has its length.
    private func forEachMappedToken(
        in utf8: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>, String, Bool) -> Void
    ) {
        utf8.forEachRun(of: Self.isTokenByte) { token in
            let (i, j) = (token.lowerBound, token.upperBound)
            if j - i >= 3, keyLengths[min(j - i, Self.longKey)] > 0,
                let live = mapping[String(decoding: UnsafeBufferPointer(rebasing: utf8[token]), as: UTF8.self)]
            {
                let whole =
                    i > 0 && j < utf8.count && utf8[i - 1] == UInt8(ascii: "\"") && utf8[j] == UInt8(ascii: "\"")
                body(token, live, whole)
            }
        }
    }

    /// Whether the body ``applyNoting(_:)`` makes of `recorded` would equal `live`, and its `wholeIds`, found by
    /// walking the two side by side instead of building the remapped body (when it equals `live`, `live` is it).
    /// Where the remapping leaves `recorded` as it is (no id in it, not UTF-8 text), that is `recorded == live`.
    /// `nil` with no id mapped, an empty body, or ids searched as substrings: there the caller remaps and compares.
    func remappedBody(_ recorded: Data, equals live: Data) -> (equal: Bool, wholeIds: Bool)? {
        guard !mapping.isEmpty, irregular.isEmpty, !recorded.isEmpty else { return nil }
        return recorded.withUnsafeBytes { recordedRaw in
            live.withUnsafeBytes { liveRaw -> (equal: Bool, wholeIds: Bool)? in
                let from = recordedRaw.assumingMemoryBound(to: UInt8.self)
                let to = liveRaw.assumingMemoryBound(to: UInt8.self)
                var cursor = 0
                /// Whether `live` goes on with `bytes` at the cursor, stepping over them when it does.
                func continues(with bytes: UnsafeBufferPointer<UInt8>) -> Bool {
                    guard bytes.count <= to.count - cursor else { return false }
                    if bytes.count > 0, memcmp(to.baseAddress! + cursor, bytes.baseAddress!, bytes.count) != 0 {
                        return false
                    }
                    cursor += bytes.count
                    return true
                }
                var (equal, wholeIds, replaced, copied) = (true, true, false, 0)
                forEachMappedToken(in: from) { token, value, whole in
                    replaced = true
                    if !whole { wholeIds = false }
                    guard equal else { return }
                    var value = value
                    equal =
                        continues(with: UnsafeBufferPointer(rebasing: from[copied..<token.lowerBound]))
                        && value.withUTF8 { continues(with: $0) }
                    copied = token.upperBound
                }
                // Nothing replaced, or a body that is not UTF-8 text, which the remapping leaves alone: it stays as
                // recorded, and so do its whole ids.
                guard replaced else { return (from.elementsEqual(to), true) }
                equal = equal && continues(with: UnsafeBufferPointer(rebasing: from[copied...])) && cursor == to.count
                guard String(validating: from, as: UTF8.self) != nil else { return (from.elementsEqual(to), true) }
                return (equal, wholeIds)
            }
        }
    }

    /// The response with ids replaced in its header values only.
    func applyingToFields(_ response: HTTPResponse) -> HTTPResponse {
        guard !mapping.isEmpty else { return response }
        var out = response
        out.headerFields = apply(response.headerFields)
        return out
    }

    /// A body with ids replaced when it is UTF-8 text; binary bodies are left alone.
    public func apply(body: Data) -> Data {
        var wholeStrings = true
        return apply(body: body, wholeStrings: &wholeStrings)
    }

    /// ``apply(body:)``, noting in `wholeStrings` whether every id replaced was a whole JSON string (and none
    /// irregular). The bytes are searched as they are: only a body in which some id occurs is checked for UTF-8 and
    /// copied, so a body with no id costs one scan.
    private func apply(body: Data, wholeStrings: inout Bool) -> Data {
        guard !mapping.isEmpty, !body.isEmpty else { return body }
        guard irregular.isEmpty else {
            // Ids searched as substrings: through text, as before.
            guard let text = String(validating: body, as: UTF8.self) else { return body }
            var mapped = text
            for key in irregular where mapped.contains(key) {
                wholeStrings = false
                mapped = mapped.replacingOccurrences(of: key, with: mapping[key]!)
            }
            mapped = apply(mapped, wholeStrings: &wholeStrings)
            return mapped == text ? body : Data(mapped.utf8)
        }
        var whole = true
        let replaced = body.withUnsafeBytes { raw in
            replacingTokens(in: raw.assumingMemoryBound(to: UInt8.self), wholeStrings: &whole)
        }
        // Binary bodies are left alone: a token run in bytes that are not UTF-8 text is not an id to replace.
        guard let replaced, String(validating: body, as: UTF8.self) != nil else { return body }
        wholeStrings = wholeStrings && whole
        return Data(replaced)
    }

    /// `fields` with ids replaced in their values; the same fields, uncopied, when none holds one.
    private func apply(_ fields: HTTPFields) -> HTTPFields {
        var out: [HTTPFields.Field]?
        for (index, field) in fields.fields.enumerated() {
            let value = replacedValue(field.value)
            guard out != nil || value != nil else { continue }
            if out == nil { out = Array(fields.fields[..<index]) }
            out!.append(.init(name: field.name, value: value ?? field.value))
        }
        return out.map(HTTPFields.init) ?? fields
    }

    /// ``apply(_:)`` of a text (a URL, a header value), `nil` when it holds no id.
    private func replacedValue(_ text: String) -> String? {
        var out: String?
        for key in irregular where (out ?? text).contains(key) {
            out = (out ?? text).replacingOccurrences(of: key, with: mapping[key]!)
        }
        var wholeStrings = true
        return replaced(out ?? text, wholeStrings: &wholeStrings) ?? out
    }

    /// The request with ids replaced in URL, header values and body (Content-Length kept true).
    public func apply(_ request: HTTPRequest) -> HTTPRequest {
        guard !mapping.isEmpty else { return request }
        var out = request
        out.url = apply(request.url)
        out.headerFields = apply(request.headerFields)
        out.body = apply(body: request.body)
        if out.body.count != request.body.count { out.headerFields.keepContentLength(out.body.count) }
        return out
    }

    /// The recorded response as it should look live: ids replaced in headers and body.
    public func apply(_ response: HTTPResponse) -> HTTPResponse { applyNoting(response).response }

    /// The recorded response as it should look live, and whether its body can hold an id the map does not know
    /// that the live body would show: `wholeIds` is true when no irregular id occurs in the body and every id
    /// replaced in it was a whole JSON string. Then, if the result's body equals the live one, a minted value in the
    /// recorded body is either a mapped id or the live value itself, and ``learn(recorded:live:minted:)`` would learn
    /// nothing from the two (so the replay need not parse them).
    func applyNoting(_ response: HTTPResponse) -> (response: HTTPResponse, wholeIds: Bool) {
        guard !mapping.isEmpty else { return (response, true) }
        var out = response
        out.headerFields = apply(response.headerFields)
        // Binary bodies are left alone, and are not JSON: nothing is learned from them.
        var wholeIds = true
        out.body = apply(body: response.body, wholeStrings: &wholeIds)
        return (out, wholeIds)
    }

    /// The same pairs the other way round (live to recorded).
    public var inverted: IdentifierMap {
        var out = IdentifierMap()
        for (k, v) in mapping { out.set(v, k) }
        return out
    }
}
