import Foundation

/// Paths the tests read: the repository they run in and the fixtures beside a test file.
public enum TestPaths {
    /// The repository root (the folder of `Package.swift`).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The built `conform` binary that `swift build` leaves for `swift test --skip-build`.
    public static let conformBinary = root.appendingPathComponent(".build/debug/conform")
}

/// `Fixtures/NAME` beside the calling test file.
public func fixturePath(_ name: String, file: StaticString = #filePath) -> String {
    URL(fileURLWithPath: "\(file)").deletingLastPathComponent().appendingPathComponent("Fixtures")
        .appendingPathComponent(name).path
}
