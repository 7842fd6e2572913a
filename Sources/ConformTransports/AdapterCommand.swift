/// The line `/bin/sh -c` runs for an adapter command.
///
/// A shell that runs a command as its child keeps the child's stdout open itself while it waits: when the adapter
/// then closes its stdout (after one reply, or before the first), Conform would see no end of file and wait out the
/// exchange timeout. A simple command (one program and its arguments, no shell syntax) is therefore run with `exec`,
/// so the program replaces the shell and its stdout is the only copy. Anything else (several commands, pipes,
/// redirections, variables, builtins) runs as written: such a command keeps the shell, and a closed stdout is
/// noticed only when the shell closes its own too (`docs/adapters.md` says to end it with `exec PROGRAM`).
enum AdapterCommand {
    /// `command` with `exec ` in front when it is a simple command, else `command` unchanged.
    static func shellLine(_ command: String) -> String {
        guard let first = simpleCommandFirstWord(command), !shellWords.contains(first), !first.contains("=") else {
            return command
        }
        return "exec " + command
    }

    /// The first word of a command made only of words (letters, digits, `_./:,@%+-~=` and quoted text without
    /// expansions) separated by spaces or tabs; `nil` for anything the shell would read as more than that.
    static func simpleCommandFirstWord(_ command: String) -> String? {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        for character in command {
            if let open = quote {
                if character == open {
                    quote = nil
                } else if open == "\"", "$`\\".contains(character) {
                    return nil
                } else {
                    word.append(character)
                }
                continue
            }
            switch character {
            case " ", "\t":
                if inWord { words.append(word) }
                word = ""
                inWord = false
            case "'", "\"":
                quote = character
                inWord = true
            default:
                guard character.isASCII, character.isLetter || character.isNumber || "_./:,@%+-~=".contains(character)
                else { return nil }
                // A leading `~` is expanded by the shell: leave such a command to it.
                if !inWord, character == "~" { return nil }
                word.append(character)
                inWord = true
            }
        }
        guard quote == nil else { return nil }
        if inWord { words.append(word) }
        return words.first
    }

    /// Reserved words and builtins of a POSIX shell (dash's among them): `exec` cannot run them as programs.
    static let shellWords: Set<String> = [
        "!", "{", "}", "case", "do", "done", "elif", "else", "esac", "fi", "for", "if", "in", "then", "until", "while",
        ".", ":", "[", "alias", "bg", "break", "cd", "chdir", "command", "continue", "echo", "eval", "exec", "exit",
        "export", "false", "fc", "fg", "getopts", "hash", "jobs", "kill", "local", "printf", "pwd", "read", "readonly",
        "return", "set", "shift", "test", "times", "trap", "true", "type", "ulimit", "umask", "unalias", "unset",
        "wait",
    ]
}
