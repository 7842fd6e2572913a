import Foundation

extension RecordingMeta {
    /// The metadata of the recording at `path` (`meta.json` in its directory, or beside its `.jsonl`): whether it
    /// was redacted and the pseudonym of each credential role; `nil` for a trace with none (a HAR, a JSON Lines
    /// file alone).
    public static func find(forTrace path: String) throws(RecordingError) -> RecordingMeta? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        let directory: String
        if isDirectory.boolValue {
            directory = path
        } else {
            guard path.hasSuffix(".jsonl") else { return nil }
            let parent = (path as NSString).deletingLastPathComponent
            directory = parent.isEmpty ? "." : parent
        }
        let meta = (directory as NSString).appendingPathComponent(RecordingLayout.metaFile)
        guard FileManager.default.fileExists(atPath: meta) || POSIX.isSymbolicLink(meta) else { return nil }
        return try load(directory: directory)
    }
}

extension Trace {
    /// The credentials the trace's redaction replaced, by role (none for a trace without metadata).
    public func redactedCredentials() throws(RecordingError) -> [RedactedCredential] {
        switch source {
        case .recording(let path): return try RecordingMeta.find(forTrace: path)?.credentials ?? []
        case .har(let document): return document.credentials
        }
    }
}
