import Foundation

/// The `conform` command line: parses arguments, wires transports and maps results to exit codes.
public enum ConformCommand {
    public static func main(_ arguments: [String]) async -> Int32 {
        FileHandle.standardError.write(Data("conform: not built yet\n".utf8))
        return 2
    }
}
