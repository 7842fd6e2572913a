/// The value of a scalar under the YAML 1.2 core schema (`yes`, `no`, `on`, `off` stay strings).
public enum YAMLScalar: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
}

extension YAMLScalar {
    /// Resolves plain, untagged scalar text with the core schema's rules.
    public static func resolvingPlain(_ text: String) -> YAMLScalar {
        guard let first = text.utf8.first else { return .null }
        // Every non-string form starts with one of these bytes; most strings are decided here.
        switch first {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
            UInt8(ascii: "~"), UInt8(ascii: "n"), UInt8(ascii: "N"), UInt8(ascii: "t"), UInt8(ascii: "T"),
            UInt8(ascii: "f"), UInt8(ascii: "F"):
            break
        default:
            return .string(text)
        }
        if let null = resolveNull(text) { return null }
        if let bool = resolveBool(text) { return bool }
        if let number = resolveInt(text) ?? resolveFloat(text) { return number }
        return .string(text)
    }

    /// Resolves `text` under an explicit core tag (`!!null`, `!!bool`, `!!int`, `!!float`, `!!str`);
    /// `nil` when the text is not a valid value of that tag or the tag is not a core scalar tag.
    static func resolving(_ text: String, coreTag tag: String) -> YAMLScalar? {
        switch tag {
        case "!!str": .string(text)
        case "!!null": resolveNull(text)
        case "!!bool": resolveBool(text)
        case "!!int": resolveInt(text)
        case "!!float":
            resolveFloat(text)
                ?? resolveInt(text).map { value in
                    if case .int(let i) = value { .double(Double(i)) } else { value }
                }
        default: nil
        }
    }

    /// The core-schema scalar tags that a scalar may carry explicitly.
    static let coreScalarTags: Set<String> = ["!!str", "!!null", "!!bool", "!!int", "!!float"]

    static func resolveNull(_ text: String) -> YAMLScalar? {
        switch text {
        case "", "~", "null", "Null", "NULL": .null
        default: nil
        }
    }

    static func resolveBool(_ text: String) -> YAMLScalar? {
        switch text {
        case "true", "True", "TRUE": .bool(true)
        case "false", "False", "FALSE": .bool(false)
        default: nil
        }
    }

    /// Decimal `[-+]?[0-9]+`, octal `0o[0-7]+`, hexadecimal `0x[0-9a-fA-F]+`; decimals too large for `Int` become doubles.
    static func resolveInt(_ text: String) -> YAMLScalar? {
        let utf8 = text.utf8
        guard let first = utf8.first else { return nil }
        if utf8.count > 2, first == UInt8(ascii: "0") {
            let marker = utf8[utf8.index(after: utf8.startIndex)]
            let digits = text.dropFirst(2)
            if marker == UInt8(ascii: "o") {
                guard digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) }) else {
                    return nil
                }
                return Int(digits, radix: 8).map(YAMLScalar.int)
            }
            if marker == UInt8(ascii: "x") {
                guard digits.utf8.allSatisfy(isHexDigit) else { return nil }
                return Int(digits, radix: 16).map(YAMLScalar.int)
            }
        }
        var body = Substring(text)
        if first == UInt8(ascii: "-") || first == UInt8(ascii: "+") { body = body.dropFirst() }
        guard !body.isEmpty, body.utf8.allSatisfy(isDigit) else { return nil }
        if let value = Int(text) { return .int(value) }
        return Double(text).map(YAMLScalar.double)
    }

    /// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, `[-+]?.inf` in three spellings, `.nan` in three spellings.
    static func resolveFloat(_ text: String) -> YAMLScalar? {
        switch text {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .double(.infinity)
        case "-.inf", "-.Inf", "-.INF": return .double(-.infinity)
        case ".nan", ".NaN", ".NAN": return .double(.nan)
        default: break
        }
        guard let first = text.utf8.first,
            first == UInt8(ascii: ".") || first == UInt8(ascii: "-")
                || first == UInt8(ascii: "+") || isDigit(first)
        else { return nil }
        let bytes = Array(text.utf8)
        var index = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
        let integerStart = index
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        let integerDigits = index - integerStart
        var fractionDigits = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            fractionDigits = index - fractionStart
        }
        guard integerDigits > 0 || fractionDigits > 0 else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                index += 1
            }
            let exponentStart = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            guard index > exponentStart else { return nil }
        }
        guard index == bytes.count else { return nil }
        return Double(text).map(YAMLScalar.double)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
