import ConformCrypto
import ConformTraffic
import Foundation

/// The SHA-256 manifest of a certification bundle, `MANIFEST.sha256`: one `<hex>  <path>` line per file (the
/// format `sha256sum -c` reads), paths relative to the bundle, sorted; every file of the bundle but the manifest.
public struct BundleManifest: Sendable, Hashable {
    /// Each file's path inside the bundle and its SHA-256, hex.
    public var entries: [(path: String, sha256: String)]

    /// The manifest's own name inside the bundle.
    public static let fileName = "MANIFEST.sha256"
    /// The detached Ed25519 signature of the manifest's bytes (`run --bundle DIR --sign KEY`), 64 raw bytes as
    /// `openssl pkeyutl -sign -rawin` writes them; like the manifest, it is not listed in the manifest.
    public static let signatureFile = "MANIFEST.sha256.sig"
    /// Bounds on what a bundle may hold, so that a hostile one cannot make verification read without end.
    public static let maxFiles = 10_000
    public static let maxFileBytes = 1 << 30
    public static let maxManifestBytes = 4 << 20

    public init(entries: [(path: String, sha256: String)]) {
        self.entries = entries.sorted { $0.path < $1.path }
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.entries.elementsEqual(b.entries) { $0 == $1 }
    }

    public func hash(into hasher: inout Hasher) {
        for e in entries {
            hasher.combine(e.path)
            hasher.combine(e.sha256)
        }
    }

    /// The manifest's text.
    public var text: String { entries.map { "\($0.sha256)  \($0.path)\n" }.joined() }

    /// The manifest of every file under `directory` (the manifest itself left out).
    public static func make(directory: String) throws(BundleProblem) -> BundleManifest {
        var entries: [(path: String, sha256: String)] = []
        for path in try files(in: directory) where path != fileName && path != signatureFile {
            entries.append((path, try digest(path, in: directory)))
        }
        return BundleManifest(entries: entries)
    }

    /// Reads a manifest's text, refusing lines that are not `<64 hex>  <path>` and paths that leave the bundle.
    public static func parse(_ text: String) throws(BundleProblem) -> BundleManifest {
        var entries: [(path: String, sha256: String)] = []
        var seen: Set<String> = []
        try refuseCarriageReturns(text)
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty { continue }
            let at = "\(fileName):\(i + 1):1"
            let hex = line.prefix(64)
            guard hex.count == 64, hex.allSatisfy({ $0.isHexDigit && !$0.isUppercase }),
                line.dropFirst(64).hasPrefix("  ")
            else {
                throw BundleProblem(
                    file: at, "the line is not '<SHA-256 in lower-case hex>  <path>'",
                    help: "the manifest is written by 'conform run --bundle DIR'; do not edit it")
            }
            let path = String(line.dropFirst(66))
            guard isPlainRelative(path) else {
                throw BundleProblem(
                    file: at, "the path '\(path)' is absolute, empty or leaves the bundle",
                    help: "a bundle names only files inside itself, by relative paths without '.' or '..'")
            }
            guard seen.insert(path).inserted else {
                throw BundleProblem(file: at, "'\(path)' is listed twice", help: "list each file once")
            }
            entries.append((path, String(hex)))
            guard entries.count <= maxFiles else {
                throw BundleProblem(
                    file: at, "more than \(maxFiles) files", help: "a bundle holds at most \(maxFiles) files")
            }
        }
        return BundleManifest(entries: entries)
    }

    /// Refuses a manifest with a carriage return, naming its line: CRLF line endings mean the bundle went through
    /// a conversion of line endings (a Windows checkout, a text-mode transfer), which changed its other text files
    /// too, and is said as such rather than as files missing from the manifest.
    static func refuseCarriageReturns(_ text: String) throws(BundleProblem) {
        let bytes = text.utf8
        guard let cr = bytes.firstIndex(of: 0x0D) else { return }
        let before = bytes[..<cr]
        let line = before.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        let column =
            before.count - (before.lastIndex(of: 0x0A).map { bytes.distance(from: bytes.startIndex, to: $0) + 1 } ?? 0)
            + 1
        let crlf = bytes.index(after: cr) < bytes.endIndex && bytes[bytes.index(after: cr)] == 0x0A
        throw BundleProblem(
            file: "\(fileName):\(line):\(column)",
            crlf
                ? "the line ends in CRLF (\\r\\n); the manifest's lines end in LF alone, as 'conform run --bundle' writes them"
                : "the line holds a carriage return (\\r); the manifest's lines end in LF alone",
            help:
                "the bundle went through a conversion of line endings, which changes its other text files too; copy or unpack the original again without converting them (git: core.autocrlf false; unzip without -a)"
        )
    }

    /// Checks `directory` against its manifest: refuses a file missing, a file not listed, a file whose SHA-256
    /// differs, and anything that is not a plain file or directory (a symbolic link, a FIFO), each with the file
    /// named. Returns the manifest.
    public static func check(directory: String) throws(BundleProblem) -> BundleManifest {
        try checked(directory: directory).manifest
    }

    /// ``check(directory:)``, and the manifest's bytes as read (what a signature is checked against).
    public static func checked(directory: String) throws(BundleProblem) -> (manifest: BundleManifest, bytes: Data) {
        let manifestBytes: Data
        do {
            manifestBytes = try ConfinedFile.read(fileName, in: directory, limit: maxManifestBytes)
        } catch {
            throw BundleProblem(
                file: fileName, "the bundle's manifest cannot be read: \(error)",
                help: "pass a directory written by 'conform run --bundle DIR'")
        }
        guard let text = String(data: manifestBytes, encoding: .utf8) else {
            throw BundleProblem(file: fileName, "the manifest is not UTF-8 text", help: "do not edit the manifest")
        }
        let manifest = try parse(text)
        let present = Set(try files(in: directory)).subtracting([fileName, signatureFile])
        let listed = Set(manifest.entries.map(\.path))
        if let extra = present.subtracting(listed).sorted().first {
            throw BundleProblem(
                file: extra, "the file is in the bundle but not in its manifest",
                help: "a bundle holds only the files its manifest lists; remove it or make the bundle again")
        }
        for entry in manifest.entries {
            guard present.contains(entry.path) else {
                throw BundleProblem(
                    file: entry.path, "the manifest lists the file but the bundle does not hold it",
                    help: "the bundle is incomplete; ask for the whole directory")
            }
            let digest = try digest(entry.path, in: directory)
            guard digest == entry.sha256 else {
                throw BundleProblem(
                    file: entry.path,
                    "the file (or the manifest) was changed: its SHA-256 is \(digest), the manifest says \(entry.sha256)",
                    help: "the bundle is not as it was written; ask for the bundle again")
            }
        }
        return (manifest, manifestBytes)
    }

    /// Every regular file under `directory`, as relative paths, sorted; refuses links and special files.
    static func files(in directory: String) throws(BundleProblem) -> [String] {
        var out: [String] = []
        var pending = [""]
        while let relative = pending.popLast() {
            let full = relative.isEmpty ? directory : (directory as NSString).appendingPathComponent(relative)
            let names: [String]
            do {
                names = try FileManager.default.contentsOfDirectory(atPath: full)
            } catch {
                throw BundleProblem(
                    file: relative.isEmpty ? directory : relative, "the directory cannot be read",
                    help: "check that the bundle exists and is readable")
            }
            for name in names.sorted() {
                let path = relative.isEmpty ? name : relative + "/" + name
                let type =
                    (try? FileManager.default.attributesOfItem(atPath: full + "/" + name))?[.type] as? FileAttributeType
                switch type {
                case .typeRegular?: out.append(path)
                case .typeDirectory?: pending.append(path)
                case .typeSymbolicLink?:
                    throw BundleProblem(
                        file: path, "is a symbolic link; a bundle holds only plain files and directories",
                        help: "replace the link with the file it points to, or make the bundle again")
                default:
                    throw BundleProblem(
                        file: path, "is not a plain file or directory",
                        help: "a bundle holds only plain files and directories")
                }
                guard out.count <= maxFiles else {
                    throw BundleProblem(
                        file: directory, "more than \(maxFiles) files", help: "a bundle holds at most \(maxFiles) files"
                    )
                }
            }
        }
        return out.sorted()
    }

    /// The SHA-256 of `path` inside `directory`, hex, read through a small buffer (``ConfinedFile``, no link is
    /// followed); a file larger than ``maxFileBytes`` is refused before it is read.
    public static func digest(_ path: String, in directory: String) throws(BundleProblem) -> String {
        let digester = SHA256.Digester()
        do {
            try ConfinedFile.forEachChunk(path, in: directory, limit: maxFileBytes) { digester.update($0) }
        } catch {
            throw BundleProblem(file: path, "cannot be read: \(error)", help: refusalHelp(error))
        }
        return Hex.encode(digester.finish())
    }

    /// What to do about a file refused for `refusal`.
    public static func refusalHelp(_ refusal: ConfinedFile.Refusal) -> String {
        if case .tooLarge(let limit) = refusal {
            return
                "verify reads this file only up to \(limit) bytes (docs/hostile-input.md), more than 'conform run --bundle' writes; ask for the bundle as it was written"
        }
        return "check the bundle's files"
    }

    /// The bytes of `path` inside `directory`, through ``ConfinedFile`` (no link is followed).
    public static func read(_ path: String, in directory: String) throws(BundleProblem) -> Data {
        do {
            return try ConfinedFile.read(path, in: directory, limit: maxFileBytes)
        } catch {
            throw BundleProblem(file: path, "cannot be read: \(error)", help: "check the bundle's files")
        }
    }

    /// A relative path of plain names: not empty, not absolute, no `.`, `..` or empty component, no NUL or `\`.
    public static func isPlainRelative(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.contains("\0"), !path.contains("\\") else { return false }
        return !path.split(separator: "/", omittingEmptySubsequences: false).contains {
            $0.isEmpty || $0 == "." || $0 == ".."
        }
    }
}

/// Why a bundle cannot be written, read or trusted: the file inside the bundle, what is wrong, and what to do.
public struct BundleProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file inside the bundle (or `MANIFEST.sha256:line:col`).
    public var file: String
    public var message: String
    public var help: String

    public init(file: String, _ message: String, help: String) {
        self.file = file
        self.message = message
        self.help = help
    }

    public var description: String { "\(file): \(message)" }
}
