import Foundation

extension TemplateScope {
    /// Generators every suite can use: unique ids, random digits, timestamps.
    public static let builtinFunctions: [String: TemplateFunction] = [
        "uuid": TemplateFunction(summary: "a random UUID, lower case") { _, _ in
            .string(UUID().uuidString.lowercased())
        },
        "digits": TemplateFunction(summary: "N random decimal digits: {{ digits 8 }}") {
            args, _ throws(TemplateError) in
            let count = try intArgument(args, 0, name: "digits", default: 8)
            guard (1...64).contains(count) else {
                throw TemplateError(
                    message: "digits takes a count from 1 to 64, got \(count)", help: "write {{ digits 8 }}")
            }
            return .string(String((0..<count).map { _ in Character(String(Int.random(in: 0...9))) }))
        },
        "random": TemplateFunction(summary: "a random integer in MIN...MAX: {{ random 1 100 }}") {
            args, _ throws(TemplateError) in
            let low = try intArgument(args, 0, name: "random", default: 0)
            let high = try intArgument(args, 1, name: "random", default: 1_000_000)
            guard low <= high else {
                throw TemplateError(message: "random needs MIN <= MAX", help: "write {{ random 1 100 }}")
            }
            return .int(Int.random(in: low...high))
        },
        "timestamp": TemplateFunction(summary: "the current time, ISO 8601 with seconds (UTC)") { _, _ in
            .string(ISO8601DateFormatter().string(from: Date()))
        },
        "epochMillis": TemplateFunction(summary: "milliseconds since 1970") { _, _ in
            .int(Int(Date().timeIntervalSince1970 * 1000))
        },
        "epochSeconds": TemplateFunction(summary: "seconds since 1970") { _, _ in
            .int(Int(Date().timeIntervalSince1970))
        },
        "base64": TemplateFunction(summary: "base64 of the argument's text") { args, _ in
            .string(Data((args.first?.text ?? "").utf8).base64EncodedString())
        },
        "lower": TemplateFunction(summary: "the argument in lower case") { args, _ in
            .string((args.first?.text ?? "").lowercased())
        },
        "upper": TemplateFunction(summary: "the argument in upper case") { args, _ in
            .string((args.first?.text ?? "").uppercased())
        },
        "each": TemplateFunction(
            summary: "an object for each element of a list: {{ each ids 'messageId' timestampDelta=3 }}",
            call: each),
    ]

    /// `{{ each LIST NAME key=value… }}`: for every element of LIST (a captured list), an object holding it as
    /// NAME and each named argument as a member, in the list's order: a report body built from captured ids.
    static func each(_ args: [JSONValue], _ named: [String: JSONValue]) throws(TemplateError) -> JSONValue {
        let help = "write {{ each ids 'messageId' timestampDelta=3 }}, ids a captured list"
        guard args.count == 2, let list = args[0].arrayValue else {
            throw TemplateError(
                message: "each takes a list and a member name, got \(args.count) argument(s)"
                    + (args.first.map { $0.arrayValue == nil ? " (the first is not a list)" : "" } ?? ""),
                help: help)
        }
        let member = args[1].text
        guard !member.isEmpty, named[member] == nil else {
            throw TemplateError(message: "each needs a member name other than its named arguments", help: help)
        }
        let constants = named.sorted { $0.key < $1.key }
        return .array(
            list.map { element in
                var object = JSONObject([(member, element)])
                for (key, value) in constants { object[key] = value }
                return .object(object)
            })
    }

    /// The whole number at `index` of a generator's arguments (`value` when absent), or a problem naming `name`.
    public static func intArgument(_ args: [JSONValue], _ index: Int, name: String, default value: Int)
        throws(TemplateError) -> Int
    {
        guard args.indices.contains(index) else { return value }
        switch args[index] {
        case .int(let i): return i
        case .string(let s):
            if let i = Int(s) { return i }
            fallthrough
        default:
            throw TemplateError(
                message: "\(name) takes whole numbers, got '\(args[index].text)'", help: "write {{ \(name) 8 }}")
        }
    }
}
