import ConformCLI
import ConformReport
import ConformRunner
import Foundation

/// The repository root, the directory in-process runs of `conform` start in.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// Runs `conform ARGS` in process with `directory` (the repository root by default) as the current directory.
func conformInProcess(_ args: [String], in directory: String = repositoryRoot) async -> (
    code: Int32, out: String, err: String
) {
    let out = MemorySink()
    let err = MemorySink()
    let io = CommandIO(out: out, err: err, color: false, environment: [:], currentDirectory: directory)
    let code = await ConformCommand.main(["conform"] + args, io: io)
    return (code, out.text, err.text)
}
