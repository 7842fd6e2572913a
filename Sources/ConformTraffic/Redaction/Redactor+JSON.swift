import ConformCore
import Foundation

/// JSON bodies: phone and token members, the policy's JSON paths, and every string as free text.
extension Redactor {
    /// `body` with every secret replaced: a JSON body over its bytes when ``JSONLeafScan`` takes it (a body in the
    /// compact form its tree would be written in, or one nothing in is replaced), else through its tree.
    func redact(body: Data) -> Data {
        if policy.jsonPaths.isEmpty,
            let redacted = JSONLeafScan.redacted(
                body,
                leaf: { value, key, arrayKey, _ in self.replacement(for: value, at: Place(key: key, arrayKey: arrayKey))
                })
        {
            return redacted
        }
        return redactThroughTree(body: body)
    }

    /// `body` redacted through its JSON tree (parsed, walked, written again when anything changed), or as text when
    /// it is not JSON: the reference the byte path answers like, and the path for what it does not take.
    func redactThroughTree(body: Data) -> Data {
        guard !body.isEmpty, let text = String(validating: body, as: UTF8.self) else { return body }
        let first = text.utf8.first { !Self.isJSONSpace($0) }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "["), let value = try? JSONValue.parse(body) {
            var changed = false
            let redacted = redact(node: value, at: Place(), changed: &changed)
            return changed ? Data(redacted.serialized().utf8) : body
        }
        let redacted = redact(text: text)
        return redacted == text ? body : Data(redacted.utf8)
    }

    func redact(json value: JSONValue) -> JSONValue {
        var changed = false
        return redact(node: value, at: Place(), changed: &changed)
    }

    /// Where a node sits: its concrete path (kept only when the policy has JSON paths to match), its own key, and
    /// for an array element the key of the array.
    struct Place {
        var path: JSONPath? = nil
        var key: String?
        var arrayKey: String?

        func child(key: String, tracking: Bool) -> Place {
            Place(path: tracking ? (path ?? JSONPath()).appending(key: key) : nil, key: key, arrayKey: nil)
        }

        func element(_ index: Int, tracking: Bool) -> Place {
            Place(path: tracking ? (path ?? JSONPath()).appending(index: index) : nil, key: nil, arrayKey: key)
        }
    }

    /// `node` with every secret replaced; `changed` is set when anything was.
    private func redact(node: JSONValue, at place: Place, changed: inout Bool) -> JSONValue {
        if let replaced = replacement(for: node, at: place) {
            if replaced != node { changed = true }
            return replaced
        }
        let tracking = !policy.jsonPaths.isEmpty
        switch node {
        case .array(let items):
            var out = items
            for i in items.indices {
                out[i] = redact(node: items[i], at: place.element(i, tracking: tracking), changed: &changed)
            }
            return .array(out)
        case .object(let object):
            var out = object
            for (key, value) in object {
                out[key] = redact(node: value, at: place.child(key: key, tracking: tracking), changed: &changed)
            }
            return .object(out)
        default:
            return node
        }
    }

    /// What replaces `node` (a leaf, or a whole subtree a policy path names), or `nil` to look inside it.
    func replacement(for node: JSONValue, at place: Place) -> JSONValue? {
        if !policy.jsonPaths.isEmpty {
            let path = place.path ?? JSONPath()
            if policy.jsonPaths.contains(where: { $0.matches(path) }) {
                switch node {
                case .null: return node
                case .string(let s): return keep.contains(s) ? node : .string(pseudonyms.opaque(s))
                default: return .string(pseudonyms.opaque(node.serialized()))
                }
            }
        }
        // An element of an array under a phone field (`"phones": ["+385…"]`) is a phone too.
        if let parent = place.arrayKey, phoneFields.contains(parent.lowercased()) {
            switch node {
            case .string(let s) where Self.isPhoneLike(s) && !keep.contains(s): return .string(pseudonyms.phone(s))
            case .int(let i) where i >= 100_000: return .string(pseudonyms.phone(String(i)))
            default: break
            }
        }
        guard let name = place.key else {
            if case .string(let s) = node { return .string(redact(text: s)) }
            return nil
        }
        let lower = name.lowercased()
        switch node {
        case .string(let s) where phoneFields.contains(lower) && Self.isPhoneLike(s) && !keep.contains(s):
            return .string(pseudonyms.phone(s))
        case .int(let i) where phoneFields.contains(lower) && i >= 100_000:
            return .string(pseudonyms.phone(String(i)))
        case .string(let s) where tokenFields.contains(lower) && !s.isEmpty && !keep.contains(s):
            return .string(pseudonyms.token(s))
        case .string(let s):
            return .string(redact(text: s))
        default:
            return nil
        }
    }

    static func isJSONSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    static func isPhoneLike(_ s: String) -> Bool {
        let digits = s.filter(\.isASCIIDigit).count
        return digits >= 6 && s.allSatisfy { $0.isASCIIDigit || " +-().".contains($0) }
    }
}
