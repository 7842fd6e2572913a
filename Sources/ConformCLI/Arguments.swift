import ConformCore
import ConformDiagnostics

/// A usage error: printed with the subcommand's usage line, exit code 64.
struct UsageError: Error {
    var message: String
    var subcommand: String?
}

/// Command-line arguments split into options (repeatable) and positionals, parsed and checked against a command's
/// declaration: unknown options, missing values and values outside their declared range are usage errors.
struct Arguments {
    var positionals: [String] = []
    var options: [String: [String]] = [:]
    var flags: Set<String> = []
    /// The command, for usage errors about a value and for each option's declared range.
    var command: CommandSpec
    var subcommand: String { command.name }
    /// The arguments as given, after the subcommand's name (reports show the command line, credentials masked).
    var given: [String] = []
    /// The process's environment, for the options that secrets may give there instead of on the command line,
    /// where `ps` shows them (``variables()``, ``substitutions()``, ``codes(_:)``).
    var environment: [String: String] = [:]

    /// Parses `args` (`--x v`, `--x=v`, flags, `--` before positionals) against `command`'s options.
    init(_ args: [String], command: CommandSpec) throws(UsageError) {
        self.command = command
        self.given = args
        let subcommand = command.name
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
            guard let option = command.option(name) else {
                let hint =
                    closestMatch(to: name, in: command.options.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
                throw UsageError(message: "unknown option '\(name)'\(hint)", subcommand: subcommand)
            }
            if case .flagOrInlineValue = option.kind {
                flags.insert(name)
                if let inline { options[name, default: []].append(inline) }
            } else if !option.kind.takesValue {
                if inline != nil {
                    throw UsageError(message: "option '\(name)' takes no value", subcommand: subcommand)
                }
                flags.insert(name)
            } else if let inline {
                options[name, default: []].append(inline)
            } else if i < args.count {
                options[name, default: []].append(args[i])
                i += 1
            } else {
                throw UsageError(message: "missing value for option '\(name)'", subcommand: subcommand)
            }
        }
        if has("--help") { return }
        // Every value is checked against its declaration before the command reads any.
        for option in command.options {
            switch option.kind {
            case .integer: _ = try integer(option.name)
            case .duration: _ = try duration(option.name)
            case .size: _ = try size(option.name)
            case .flag, .flagOrInlineValue, .text: break
            }
            if option.required, value(option.name) == nil {
                throw UsageError(
                    message: "missing \(option.name) \(option.usageValue ?? option.value)", subcommand: subcommand)
            }
        }
    }

    func value(_ name: String) -> String? { options[name]?.last }

    /// The value of an option its declaration marks required: the arguments did not parse without it.
    func required(_ name: String) -> String {
        precondition(declared(name).required, "\(command.name) does not declare \(name) required")
        guard let value = value(name) else { preconditionFailure("\(command.name) parsed without \(name)") }
        return value
    }

    /// A repeatable `NAME=VALUE` option (`--var`, `--map`) as a dictionary; the last value of a name wins.
    func pairs(_ name: String) throws(UsageError) -> [String: String] {
        var out: [String: String] = [:]
        for item in values(name) {
            guard let eq = item.firstIndex(of: "="), eq != item.startIndex else {
                throw UsageError(message: "\(name) takes NAME=VALUE, got '\(item)'", subcommand: subcommand)
            }
            out[String(item[..<eq])] = String(item[item.index(after: eq)...])
        }
        return out
    }
    func values(_ name: String) -> [String] { options[name] ?? [] }
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// The one positional argument the command takes; a usage error saying `what` it takes otherwise.
    func onePositional(_ what: String) throws(UsageError) -> String {
        guard positionals.count == 1, let only = positionals.first else {
            throw UsageError(message: "\(command.name) takes \(what)", subcommand: command.name)
        }
        return only
    }

    /// What a timeout on the command line may be: a zero or infinite wait makes no sense.
    static let timeoutRange: ClosedRange<Duration> = .milliseconds(1) ... .seconds(86_400)

    /// The duration option `name` holds (`30`, `5s`, `200ms`, `1m`), or `nil` when it is absent; a value that is
    /// not a duration or lies outside the declared range is a usage error naming the option.
    func duration(_ name: String) throws(UsageError) -> Duration? {
        try parsed(name, "duration", range: { if case .duration(let range) = $0 { range } else { nil } }) {
            DurationText.parse($0, in: $1)
        } takes: {
            "a duration \(DurationText.describe($0)) such as 30, 5s or 200ms"
        }
    }

    /// The integer option `name` holds, or `nil` when it is absent; a value that is not an integer or lies
    /// outside the declared range is a usage error naming the option.
    func integer(_ name: String) throws(UsageError) -> Int? {
        try parsed(name, "integer", range: { if case .integer(let range) = $0 { range } else { nil } }) {
            IntegerText.parse($0, in: $1)
        } takes: {
            "\($0.lowerBound) to \($0.upperBound)"
        }
    }

    /// The size option `name` holds (`64MB`, `512KB`, bytes), or `nil` when it is absent.
    func size(_ name: String) throws(UsageError) -> Int? {
        try parsed(name, "size", range: { if case .size(let range) = $0 { range } else { nil } }) {
            IntegerText.byteCount($0, in: $1)
        } takes: {
            "a size from \(ByteText.format($0.lowerBound)) to \(ByteText.format($0.upperBound)) such as 64MB or 512KB"
        }
    }

    /// The option `name` holds, read by `parse` within the range its declared kind gives (`range`; a `kind` of
    /// option it is not declared as is a programming error), or `nil` when it is absent; a value `parse` refuses is
    /// a usage error saying what the option `takes`.
    private func parsed<Value, Bounds>(
        _ name: String, _ kind: String, range: (OptionKind) -> Bounds?, _ parse: (String, Bounds) -> Value?,
        takes: (Bounds) -> String
    ) throws(UsageError) -> Value? {
        guard let text = value(name) else { return nil }
        guard let range = range(declared(name).kind) else { preconditionFailure("\(name) is no \(kind)") }
        guard let parsed = parse(text, range) else {
            throw UsageError(message: "\(name) takes \(takes(range)), got '\(text)'", subcommand: subcommand)
        }
        return parsed
    }

    /// `--max-body SIZE`, or the default of 64 MB.
    func maxBody() throws(UsageError) -> Int {
        try size("--max-body") ?? ResponseLimits.defaultMaxBodyBytes
    }

    /// A port option: 0 (any free port) to 65535, as declared.
    func port(_ name: String) throws(UsageError) -> UInt16? {
        try integer(name).map { UInt16($0) }
    }

    /// The declaration of an option the command reads; reading an undeclared one is a programming error.
    private func declared(_ name: String) -> OptionSpec {
        guard let option = command.option(name) else { preconditionFailure("\(command.name) declares no \(name)") }
        return option
    }
}

/// Sizes as messages write them: `1KB`, `64MB`, `2GB`.
enum ByteText {
    static func format(_ bytes: Int) -> String {
        for (suffix, factor) in [("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)] where bytes % factor == 0 {
            return "\(bytes / factor)\(suffix)"
        }
        return "\(bytes) bytes"
    }
}
