import ConformCore

/// What the server checks in a request head before any handler sees it: methods and field names are RFC 9110
/// tokens, field values and the request target hold no control bytes and are UTF-8, and a message carries at most
/// ``HTTPServerLimits/maxHeaderFields`` fields.
///
/// A recording proxy passes on and writes down what it is given, so a request its own readers would refuse, or one
/// whose bytes would change on the way (invalid UTF-8 turned into U+FFFD), is refused here with 400 instead.
enum RequestHeadRules {
    /// Why a head is refused: the status, the envelope's code and a message for the client.
    struct Refusal: Sendable, Hashable, Error {
        var status: Int
        var code: String
        var message: String

        static func badRequest(_ message: String) -> Refusal {
            Refusal(status: 400, code: "BAD_REQUEST", message: message)
        }
    }

    /// Whether `byte` may appear in an RFC 9110 token (``HTTPSyntax/isTokenByte(_:)``).
    static func isTokenByte(_ byte: UInt8) -> Bool { HTTPSyntax.isTokenByte(byte) }

    /// `nil` when `method` is a token.
    static func checkMethod<Bytes: Collection<UInt8>>(_ method: Bytes) -> Refusal? {
        guard let index = firstNonToken(method) else { return nil }
        return .badRequest(
            "method '\(shown(method))' is not a token (RFC 9110 section 9.1): \(describe(method, at: index)); "
                + "send a method such as GET or POST")
    }

    /// `nil` when the request target holds no control byte, space or DEL and is UTF-8.
    static func checkTarget<Bytes: Collection<UInt8>>(_ target: Bytes) -> Refusal? {
        if let index = target.firstIndex(where: { $0 <= 0x20 || $0 == 0x7F }) {
            let byte = target[index]
            return .badRequest(
                "request target '\(shown(target))' holds \(describe(target, at: index)); "
                    + "percent-encode it (%\(hex(byte)))")
        }
        return notUTF8(target, "request target '\(shown(target))'") { "percent-encode such bytes (%\(hex($0)))" }
    }

    /// `nil` when `name` is a token and `value` holds no control byte other than tab and is UTF-8.
    static func checkField<Name: Collection<UInt8>, Value: Collection<UInt8>>(name: Name, value: Value) -> Refusal? {
        if name.isEmpty { return .badRequest("a header field has an empty name; every field needs one (name: value)") }
        if let index = firstNonToken(name) {
            let byte = name[index]
            if byte == 0x20 || byte == 0x09, name[index...].allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                return .badRequest(
                    "header field '\(shown(name))' has whitespace before the colon, which RFC 9112 section 5.1 "
                        + "forbids; write '\(shown(name.prefix(while: isTokenByte))): value'")
            }
            return .badRequest(
                "header field name '\(shown(name))' is not a token (RFC 9110 section 5.1): "
                    + "\(describe(name, at: index)); use letters, digits and !#$%&'*+-.^_`|~ only")
        }
        if let index = value.firstIndex(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            return .badRequest(
                "value of header field '\(shown(name))' holds \(describe(value, at: index)) "
                    + "(RFC 9110 section 5.5); remove it or encode the value")
        }
        return notUTF8(value, "value of header field '\(shown(name))'") { _ in "send UTF-8 or encode the value" }
    }

    /// The refusal of `bytes` (`what`, as the message names them) when they are not UTF-8, at the first byte that
    /// is not, with `fix` of that byte; `nil` when they are. `what` is written only for a refusal: every field of
    /// every request passes through here.
    private static func notUTF8<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, _ what: @autoclosure () -> String, fix: (UInt8) -> String
    ) -> Refusal? {
        guard let offset = firstInvalidUTF8(bytes) else { return nil }
        let byte = bytes[bytes.index(bytes.startIndex, offsetBy: offset)]
        return .badRequest(
            "\(what()) is not UTF-8 (byte 0x\(hex(byte)) at offset \(offset)); "
                + "\(fix(byte)), the server passes on only what it can keep as sent")
    }

    /// The refusal for a message with more than `limit` header fields.
    static func tooManyFields(limit: Int) -> Refusal {
        Refusal(
            status: 431, code: "REQUEST_HEADER_FIELDS_TOO_LARGE",
            message: "request has more than \(limit) header fields, the server limit; send fewer fields")
    }

    /// The offset of the first byte that does not belong to well-formed UTF-8, or `nil`.
    static func firstInvalidUTF8<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int? {
        // The usual head is ASCII: one pass, no decoder.
        guard bytes.contains(where: { $0 >= 0x80 }) else { return nil }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    private static func firstNonToken<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bytes.Index? {
        if bytes.isEmpty { return bytes.startIndex }
        return bytes.firstIndex { !isTokenByte($0) }
    }

    private static func describe<Bytes: Collection<UInt8>>(_ bytes: Bytes, at index: Bytes.Index) -> String {
        let offset = bytes.distance(from: bytes.startIndex, to: index)
        if index == bytes.endIndex { return "it is empty" }
        let byte = bytes[index]
        let kind =
            switch byte {
            case 0x20: "a space"
            case 0x09: "a tab"
            case 0x7F: "the DEL byte"
            case 0x1B: "the ESC byte"
            case ..<0x20: "the control byte"
            case 0x80...: "the non-ASCII byte"
            default: "the byte '\(Character(Unicode.Scalar(byte)))'"
            }
        let code = byte < 0x20 || byte >= 0x7F ? " 0x\(hex(byte))" : ""
        return "\(kind)\(code) at offset \(offset)"
    }

    /// At most 60 bytes of `bytes` as printable text: control and non-ASCII bytes as `\xNN`.
    static func shown<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        var text = ""
        for byte in bytes.prefix(60) {
            if byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\\") {
                text += byte == UInt8(ascii: "\\") ? "\\\\" : "\\x\(hex(byte))"
            } else {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return bytes.count > 60 ? text + "…" : text
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
