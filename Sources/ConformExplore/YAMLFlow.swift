import ConformCore

/// A value of a suite written in YAML's flow style (`{a: 1, b: [x]}`): what generated suites' expectations are made
/// of. Keys and strings are written as JSON strings, which YAML reads alike.
indirect enum YAMLFlow: Sendable, Hashable {
    /// Text written as it is (`2xx`, `$none`, `true`, an already quoted string).
    case raw(String)
    case map([(key: String, value: YAMLFlow)])
    case list([YAMLFlow])

    static func == (lhs: YAMLFlow, rhs: YAMLFlow) -> Bool { lhs.text == rhs.text }
    func hash(into hasher: inout Hasher) { hasher.combine(text) }

    /// A quoted string.
    static func string(_ text: String) -> YAMLFlow { .raw(JSONValue.string(text).serialized()) }
    /// `{$oneOf: [false, $none]}`: a flag that is clear, however the implementation writes it.
    static let clear = YAMLFlow.map([("$oneOf", .list([.raw("false"), .raw("$none")]))])

    var text: String {
        switch self {
        case .raw(let text): text
        case .list(let items): "[" + items.map(\.text).joined(separator: ", ") + "]"
        case .map(let pairs):
            "{" + pairs.map { Self.key($0.key) + ": " + $0.value.text }.joined(separator: ", ") + "}"
        }
    }

    private static func key(_ key: String) -> String {
        key.hasPrefix("$") || key.contains(where: { !$0.isLetter && !$0.isNumber && $0 != "_" })
            ? (key.hasPrefix("$") ? key : JSONValue.string(key).serialized()) : key
    }

    /// `value` at the JSON path `path` (`$.a.b`) as nested maps; a step with an index (`list[0]`) as a list that
    /// holds an element like it (`{list: {$contains: [inner]}}`).
    static func at(_ path: String, _ value: YAMLFlow) -> YAMLFlow {
        path.split(separator: ".").dropFirst().reversed().reduce(value) { inner, step in
            let (member, index) = Self.step(step)
            return .map([(member, index == nil ? inner : .map([("$contains", .list([inner]))]))])
        }
    }

    /// A step of a simple JSON path: its member and, for `member[N]`, the index.
    static func step(_ step: Substring) -> (member: String, index: Int?) {
        guard step.hasSuffix("]"), let open = step.firstIndex(of: "["),
            let index = Int(step[step.index(after: open)..<step.index(before: step.endIndex)]), index >= 0
        else { return (String(step), nil) }
        return (String(step[..<open]), index)
    }

    /// Both maps in one (members of both merged, member by member); anything else: `other` wins.
    func merged(with other: YAMLFlow) -> YAMLFlow {
        guard case .map(var mine) = self, case .map(let theirs) = other else { return other }
        for (key, value) in theirs {
            if let i = mine.firstIndex(where: { $0.key == key }) {
                mine[i].value = mine[i].value.merged(with: value)
            } else {
                mine.append((key, value))
            }
        }
        return .map(mine)
    }
}
