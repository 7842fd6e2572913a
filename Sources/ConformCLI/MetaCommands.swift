import ConformCore
import ConformDiagnostics

/// The commands about Conform itself: `help`, `completion`, `man`.
extension CommandSpec {
    static let help = CommandSpec(
        name: "help", abstract: "Show help for a subcommand.",
        overview: "Show help for a subcommand: the same as 'conform SUBCOMMAND --help'.",
        arguments: [
            ArgumentSpec(
                name: "SUBCOMMAND", help: "The subcommand (default: the overview of every one).", repeatable: false,
                completion: .commands)
        ],
        options: [.help])

    static let completion = CommandSpec(
        name: "completion", abstract: "Print a shell completion script (bash, zsh or fish).",
        overview: "Print a completion script for a shell, generated from the options every subcommand declares.",
        arguments: [
            ArgumentSpec(
                name: "SHELL", help: "bash, zsh or fish.", optional: false, repeatable: false,
                completion: .words(ShellCompletion.shells))
        ],
        options: [.help],
        discussion: """
            bash:  conform completion bash > /etc/bash_completion.d/conform
            zsh:   conform completion zsh > "${fpath[1]}/_conform"
            fish:  conform completion fish > ~/.config/fish/completions/conform.fish
            """)

    static let man = CommandSpec(
        name: "man", abstract: "Print the manual page (roff), generated from the same declarations.",
        overview: "Print the manual page conform(1) in roff, generated from the options every subcommand declares.",
        options: [.help], discussion: "View it with: conform man | man -l -")
}

enum MetaCommands {
    static func help(_ args: [String], io: CommandIO) throws(UsageError) -> Int32 {
        let parsed = try Arguments(args, command: .help)
        guard let name = parsed.positionals.first, !parsed.has("--help") else {
            io.out.write(parsed.has("--help") ? CommandSpec.help.helpText : CommandSpec.rootHelp)
            return 0
        }
        guard parsed.positionals.count == 1, let command = CommandSpec.named(name) else {
            let suggestion = closestMatch(to: name, in: CommandSpec.all.map(\.name)).map { "; did you mean '\($0)'?" }
            throw UsageError(
                message: "unknown subcommand \(HTTPSyntax.quoted(name))\(suggestion ?? "")", subcommand: "help")
        }
        io.out.write(command.helpText)
        return 0
    }

    static func completion(_ parsed: Arguments, io: CommandIO) throws(UsageError) -> Int32 {
        guard parsed.positionals.count == 1, let script = ShellCompletion.script(for: parsed.positionals[0]) else {
            throw UsageError(
                message: "completion takes one shell: \(ShellCompletion.shells.joined(separator: ", "))",
                subcommand: "completion")
        }
        io.out.write(script)
        return 0
    }

    static func man(_ parsed: Arguments, io: CommandIO) throws(UsageError) -> Int32 {
        if let extra = parsed.positionals.first {
            throw UsageError(message: "unexpected argument '\(extra)'", subcommand: "man")
        }
        io.out.write(ManPage.render(version: ConformCommand.version))
        return 0
    }
}
