import ConformCore

/// What an option's value is: parsing checks it, help and completions describe it.
enum OptionKind: Sendable {
    /// No value: present or not.
    case flag
    /// Present or not, with a value only when given inline (`--fresh-identities=PREFIX`); a shell expects none.
    case flagOrInlineValue
    /// Any text; `completion` says what a shell may offer for it.
    case text(Completion = .none)
    /// A whole number within the range.
    case integer(ClosedRange<Int>)
    /// A duration (`30`, `5s`, `200ms`, `1m`) within the range.
    case duration(ClosedRange<Duration>)
    /// A size (`64MB`, `512KB`, bytes) within the range.
    case size(ClosedRange<Int>)

    /// What a shell may complete a text value with.
    enum Completion: Sendable, Equatable {
        case none
        case file
        case directory
        /// One of these words (checked by the command, with its own message).
        case words([String])
        /// The name of a subcommand.
        case commands

        /// The words to offer, `nil` for files, directories or nothing.
        var words: [String]? {
            switch self {
            case .words(let words): words
            case .commands: CommandSpec.all.map(\.name)
            default: nil
            }
        }
    }

    var takesValue: Bool {
        switch self {
        case .flag, .flagOrInlineValue: false
        default: true
        }
    }

    var completion: Completion {
        switch self {
        case .text(let c): c
        default: .none
        }
    }
}

/// One option of a command, declared once: parsing, validation, help, usage, completions and the man page read it.
struct OptionSpec: Sendable {
    /// `--timeout`.
    var name: String
    /// `SECONDS`; empty for a flag.
    var value: String
    var kind: OptionKind
    /// Several values may be given (`--var A=1 --var B=2`).
    var repeatable: Bool
    /// The command refuses to run without it.
    var required: Bool
    /// Shown in the usage line; `usageValue` replaces `value` there (`URL|builtin|exec:CMD`).
    var inUsage: Bool
    var usageValue: String?
    /// Help text; a new line starts a new line in `--help`.
    var help: String

    init(
        _ name: String, _ value: String = "", _ kind: OptionKind = .flag, repeatable: Bool = false,
        required: Bool = false, usage: Bool = false, usageValue: String? = nil, help: String
    ) {
        self.name = name
        self.value = value
        self.kind = kind
        self.repeatable = repeatable
        self.required = required
        self.inUsage = usage || required
        self.usageValue = usageValue
        self.help = help
    }

    static let help = OptionSpec("--help", help: "Show help information.")
    static let noColor = OptionSpec("--no-color", help: "Never colour the output (NO_COLOR is honoured too).")
    static let verbose = OptionSpec("--verbose", help: "List every step, not only those that did not pass.")
    static let insecure = OptionSpec("--insecure", help: "Accept any TLS certificate (self-signed staging servers).")
    static func timeout(_ help: String) -> OptionSpec {
        OptionSpec("--timeout", "SECONDS", .duration(Arguments.timeoutRange), help: help)
    }
    static let retry = OptionSpec(
        "--retry", "N", .integer(0...RetryPolicy.maxRetries),
        help: """
            Send an exchange again, up to N times (0 to 10, default: 0), when a gateway
            answers for the implementation (a 502, 503 or 504 that is not JSON) or the
            connection is refused or reset before any answer; waits 0.25 s, doubling up
            to 2 s, between tries. Every retry is counted in the reports; a 4xx, a JSON
            5xx or a timeout is never retried.
            """)
    static func maxBody(_ help: String) -> OptionSpec {
        OptionSpec("--max-body", "SIZE", .size(ResponseLimits.maxBodyRange), help: help)
    }
    static let port = OptionSpec(
        "--port", "N", .integer(0...65_535), usage: true,
        help: "The port (default: 0, any free port; the bound address is printed).")
    static let host = OptionSpec(
        "--host", "ADDRESS", .text(), help: "The address to listen on (default: 127.0.0.1).")
    static func variables(_ help: String, usage: Bool = false) -> OptionSpec {
        OptionSpec("--var", "NAME=VALUE", .text(), repeatable: true, usage: usage, help: help)
    }
    static func report(_ help: String, usage: Bool = true, usageValue: String = "junit:FILE|json:FILE|html:FILE")
        -> OptionSpec
    {
        OptionSpec(
            "--report", "KIND:FILE", .text(.file), repeatable: true, usage: usage, usageValue: usageValue, help: help)
    }
}

/// A positional argument of a command.
struct ArgumentSpec: Sendable {
    /// `SUITES`.
    var name: String
    var help: String
    var optional: Bool = true
    var repeatable: Bool = true
    var completion: OptionKind.Completion = .file
}

/// A command, declared once: its options, arguments and texts.
struct CommandSpec: Sendable {
    var name: String
    /// One line for the root help's list of subcommands.
    var abstract: String
    /// The OVERVIEW paragraph.
    var overview: String
    var arguments: [ArgumentSpec] = []
    var options: [OptionSpec]
    /// Paragraphs after the options.
    var discussion: String = ""
    /// The EXIT CODES paragraph; empty for none.
    var exitCodes: String = ""

    func option(_ name: String) -> OptionSpec? { options.first { $0.name == name } }

    /// `conform run [SUITES...] [--target URL|builtin|exec:CMD] …`.
    var usage: String {
        var parts = ["conform", name]
        for argument in arguments {
            let shown = argument.name + (argument.repeatable ? "..." : "")
            parts.append(argument.optional ? "[\(shown)]" : shown)
        }
        for option in options where option.inUsage {
            let value = option.usageValue ?? option.value
            let shown = value.isEmpty ? option.name : "\(option.name) \(value)"
            parts.append((option.required ? shown : "[\(shown)]") + (option.repeatable ? "..." : ""))
        }
        return parts.joined(separator: " ")
    }
}
