internal import CBuildInfo

/// The kit's version and the commit it was built from, as every report's provenance names them.
public enum ConformVersion {
    /// Conform's version (`conform --version`).
    public static let version = "0.1.0"
    /// The commit the binary was built from (embedded at build time by `Package.swift`), or `unknown`.
    public static let commit = String(cString: conform_build_commit())
}
