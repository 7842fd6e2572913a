import ConformCore

/// A usage error: printed with the subcommand's usage line, exit code 64.
struct UsageError: Error {
    var message: String
    var subcommand: String?
}

/// Command-line arguments split into options (repeatable) and positionals, checked against a declared set.
struct Arguments {
    var positionals: [String] = []
    var options: [String: [String]] = [:]
    var flags: Set<String> = []
    /// The subcommand, for usage errors about a value.
    var subcommand: String

    /// Parses `args`; `valued` options take a value (`--x v` or `--x=v`), `flagNames` take none.
    init(_ args: [String], valued: Set<String>, flagNames: Set<String>, subcommand: String) throws(UsageError) {
        self.subcommand = subcommand
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if onlyPositionals || !arg.hasPrefix("-") || arg == "-" {
                positionals.append(arg)
                continue
            }
            if arg == "--" {
                onlyPositionals = true
                continue
            }
            var name = arg
            var inline: String?
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            if name == "-h" { name = "--help" }
            if flagNames.contains(name) {
                if inline != nil {
                    throw UsageError(message: "option '\(name)' takes no value", subcommand: subcommand)
                }
                flags.insert(name)
            } else if valued.contains(name) {
                if let inline {
                    options[name, default: []].append(inline)
                } else if i < args.count {
                    options[name, default: []].append(args[i])
                    i += 1
                } else {
                    throw UsageError(message: "missing value for option '\(name)'", subcommand: subcommand)
                }
            } else {
                let all = Array(valued) + Array(flagNames)
                let hint = closest(name, all).map { "; did you mean '\($0)'?" } ?? ""
                throw UsageError(message: "unknown option '\(name)'\(hint)", subcommand: subcommand)
            }
        }
    }

    func value(_ name: String) -> String? { options[name]?.last }
    func values(_ name: String) -> [String] { options[name] ?? [] }
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// What a timeout on the command line may be: a zero or infinite wait makes no sense.
    static let timeoutRange: ClosedRange<Duration> = .milliseconds(1) ... .seconds(86_400)

    /// The duration option `name` holds (`30`, `5s`, `200ms`, `1m`), or `nil` when it is absent; a value that is
    /// not a duration or lies outside `range` is a usage error naming the option.
    func duration(_ name: String, in range: ClosedRange<Duration> = timeoutRange) throws(UsageError) -> Duration? {
        guard let text = value(name) else { return nil }
        guard let d = DurationText.parse(text, in: range) else {
            throw UsageError(
                message:
                    "\(name) takes a duration \(DurationText.describe(range)) such as 30, 5s or 200ms, got '\(text)'",
                subcommand: subcommand)
        }
        return d
    }

    /// The integer option `name` holds, or `nil` when it is absent; a value that is not an integer or lies
    /// outside `range` is a usage error naming the option.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let n = IntegerText.parse(text, in: range) else {
            throw UsageError(
                message: "\(name) takes \(range.lowerBound) to \(range.upperBound), got '\(text)'",
                subcommand: subcommand)
        }
        return n
    }

    /// `--max-body SIZE` (`64MB`, `512KB`, bytes), or the default of 64 MB.
    func maxBody() throws(UsageError) -> Int {
        guard let text = value("--max-body") else { return ResponseLimits.defaultMaxBodyBytes }
        guard let n = IntegerText.byteCount(text, in: ResponseLimits.maxBodyRange) else {
            throw UsageError(
                message: "--max-body takes a size from 1KB to 2GB such as 64MB or 512KB, got '\(text)'",
                subcommand: subcommand)
        }
        return n
    }

    /// A port option: 0 (any free port) to 65535.
    func port(_ name: String) throws(UsageError) -> UInt16? {
        try integer(name, in: 0...65_535).map { UInt16($0) }
    }
}

private func closest(_ word: String, _ candidates: [String]) -> String? {
    candidates.min { distance(word, $0) < distance(word, $1) }.flatMap { distance(word, $0) <= 3 ? $0 : nil }
}

private func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    var row = Array(0...b.count)
    for i in 1...max(a.count, 1) where !a.isEmpty {
        var next = [i] + Array(repeating: 0, count: b.count)
        for j in 1...max(b.count, 1) where !b.isEmpty {
            next[j] = min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        row = next
    }
    return row[b.count]
}
