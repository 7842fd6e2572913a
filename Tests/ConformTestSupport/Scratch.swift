import Foundation

/// A fresh directory of one test under the system temporary directory, removed when the value goes away.
///
/// Each value has its own directory (a UUID in its name), so tests running in parallel never share a path.
public final class Scratch: Sendable {
    /// The directory.
    public let url: URL

    /// Creates the directory; `label` (letters and digits are kept) names it for a reader of `/tmp`.
    public init(_ label: String = "test") throws {
        url = URL(fileURLWithPath: Scratch.newPath(label))
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// A path for a new directory under the system temporary directory, not yet created.
    public static func newPath(_ label: String) -> String {
        let safe = label.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return FileManager.default.temporaryDirectory.appendingPathComponent("conform-\(safe)-\(UUID().uuidString)")
            .path
    }
}

/// A fresh directory under the system temporary directory, named after the calling test; the caller removes it.
public func temporaryDirectory(_ name: String = #function) -> String {
    let path = Scratch.newPath(name)
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
