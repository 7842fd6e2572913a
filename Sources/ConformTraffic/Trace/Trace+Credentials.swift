import Foundation

extension Trace {
    /// The metadata of a recording (`meta.json` in its directory, or beside its `exchanges.jsonl`): whether it was
    /// redacted and the pseudonym of each credential role; `nil` for a trace with none (a HAR, a bare JSON Lines
    /// file).
    public func recordingMeta() throws(RecordingError) -> RecordingMeta? {
        guard case .recording(let path) = source else { return nil }
        var isDirectory: ObjCBool = false
        let directory =
            FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
            ? path : (path as NSString).deletingLastPathComponent
        let folder = directory.isEmpty ? "." : directory
        let meta = (folder as NSString).appendingPathComponent(RecordingLayout.metaFile)
        guard FileManager.default.fileExists(atPath: meta) || POSIX.isSymbolicLink(meta) else { return nil }
        return try RecordingMeta.load(directory: folder)
    }

    /// The credentials the trace's redaction replaced, by role (none for a trace without metadata).
    public func redactedCredentials() throws(RecordingError) -> [RedactedCredential] {
        try recordingMeta()?.credentials ?? []
    }
}
