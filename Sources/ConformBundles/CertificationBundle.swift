import ConformCore
import ConformCrypto
import ConformReport
import ConformTraffic
import Foundation

/// A certification bundle (`conform run --bundle DIR`, docs/certification.md): the reports of a run, its complete
/// exchange log (redacted as recordings are), its suites, the product file, the kit's version, what verification
/// needs to run the plan again (``BundleInfo``) and a SHA-256 manifest of every file (``BundleManifest``).
public enum CertificationBundle {
    /// The files of a bundle, by their names inside it.
    public static let infoFile = "bundle.json"
    public static let versionFile = "VERSION"
    public static let productFile = "PRODUCT.yaml"
    public static let jsonReport = "report.json"
    public static let junitReport = "report.xml"
    public static let htmlReport = "report.html"
    /// The exchange log: a recording directory.
    public static let logDirectory = "log"
    /// The suite files of the run.
    public static let suitesDirectory = "suites"

    /// Makes `directory` for a new bundle: refuses one that exists and is not empty, or a symbolic link.
    public static func create(_ directory: String) throws(BundleProblem) {
        let manager = FileManager.default
        if let type = (try? manager.attributesOfItem(atPath: directory))?[.type] as? FileAttributeType {
            guard type == .typeDirectory else {
                throw BundleProblem(
                    file: directory, "exists and is not a directory",
                    help: "name a new directory for the bundle")
            }
            guard (try? manager.contentsOfDirectory(atPath: directory))?.isEmpty ?? false else {
                throw BundleProblem(
                    file: directory, "is not empty", help: "name a new or empty directory for the bundle")
            }
        }
        do {
            try manager.createDirectory(
                atPath: (directory as NSString).appendingPathComponent(suitesDirectory),
                withIntermediateDirectories: true)
        } catch {
            throw BundleProblem(file: directory, "cannot be created", help: "check the path and permissions")
        }
    }

    /// Writes `data` as `name` inside the bundle, refusing to write through a link or over a file.
    public static func write(_ data: Data, as name: String, in directory: String) throws(BundleProblem) {
        guard BundleManifest.isPlainRelative(name) else {
            throw BundleProblem(file: name, "is not a plain relative path", help: "name files inside the bundle")
        }
        let path = (directory as NSString).appendingPathComponent(name)
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw BundleProblem(file: name, "cannot be written", help: "check the bundle directory's permissions")
        }
        defer { try? handle.close() }
        do { try handle.write(contentsOf: data) } catch {
            throw BundleProblem(file: name, "cannot be written: \(error)", help: "check the free space")
        }
    }

    /// Copies the file `name` of the bundle in `source` into the bundle in `directory` as `newName` (its
    /// directories made), through a small buffer, and refuses it (the copy left incomplete) unless its SHA-256 is
    /// `sha256`, the one the source's manifest gives: a file changed after the source was checked is not copied.
    public static func copy(
        _ name: String, from source: String, sha256: String, as newName: String, in directory: String
    ) throws(BundleProblem) {
        guard BundleManifest.isPlainRelative(newName) else {
            throw BundleProblem(file: newName, "is not a plain relative path", help: "name files inside the bundle")
        }
        let path = (directory as NSString).appendingPathComponent(newName)
        let parent = (path as NSString).deletingLastPathComponent
        guard (try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)) != nil,
            FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw BundleProblem(file: newName, "cannot be written", help: "check the bundle directory's permissions")
        }
        defer { try? handle.close() }
        let digester = SHA256.Digester()
        var failure: (any Error)?
        do {
            try ConfinedFile.forEachChunk(name, in: source, limit: BundleManifest.maxFileBytes) { chunk in
                guard failure == nil else { return }
                digester.update(chunk)
                do { try handle.write(contentsOf: Data(chunk)) } catch { failure = error }
            }
        } catch {
            throw BundleProblem(file: name, "cannot be read: \(error)", help: BundleManifest.refusalHelp(error))
        }
        if let failure {
            throw BundleProblem(file: newName, "cannot be written: \(failure)", help: "check the free space")
        }
        let digest = Hex.encode(digester.finish())
        guard digest == sha256 else {
            throw BundleProblem(
                file: name, "changed while it was copied: its SHA-256 is \(digest), its manifest says \(sha256)",
                help: "leave the bundle alone while it is merged, then merge again")
        }
    }

    /// Writes the manifest of every file in the bundle; the last file written.
    public static func seal(_ directory: String) throws(BundleProblem) -> BundleManifest {
        let manifest = try BundleManifest.make(directory: directory)
        try write(Data(manifest.text.utf8), as: BundleManifest.fileName, in: directory)
        return manifest
    }
}

/// What `conform verify` needs to play a bundle's plan again against its log: the seed of the generators, the
/// target's bases, the variables that are not credentials, the selection, the shard and the suite files in plan
/// order, and the exchanges that had no response (the log holds only answered ones).
public struct BundleInfo: Sendable, Hashable {
    public static let format = 1

    public var kitVersion: String
    public var kitCommit: String
    public var seed: String
    public var target: String
    public var bases: [String: String]
    /// The variables given (`--var`, `CONFORM_VAR_`) that are not credentials; credentials are left to the suites'
    /// defaults when verifying.
    public var variables: [String: String]
    public var tags: [String]
    public var filters: [String]
    public var steps: [String]
    /// `K/N` when the run was one shard.
    public var shard: String?
    public var failFast: Bool
    public var allowedHosts: [String]
    /// The suite files inside the bundle (`suites/…`), in plan order.
    public var suites: [String]
    /// Exchanges that got no response: the tag's key, and the transport error.
    public var failures: [Failure]
    /// For each value the run sent that came back redacted: its digest under the seed, and its pseudonym.
    public var pseudonyms: [String: String]
    /// In a bundle merged from shards (`conform merge --bundle`): the directory of each shard inside it (each with
    /// the shard's own `bundle.json` and `log/`); empty in the bundle of one run. A merged bundle is format 2.
    public var shards: [String] = []
    /// The format of a merged bundle's `bundle.json`.
    public static let mergedFormat = 2

    public struct Failure: Sendable, Hashable {
        public var tag: String
        public var kind: String
        public var message: String
    }

    public init(
        kitVersion: String, kitCommit: String, seed: String, target: String, bases: [String: String],
        variables: [String: String], tags: [String], filters: [String], steps: [String], shard: String?,
        failFast: Bool, allowedHosts: [String], suites: [String], failures: [Failure] = [],
        pseudonyms: [String: String] = [:]
    ) {
        self.pseudonyms = pseudonyms
        self.kitVersion = kitVersion
        self.kitCommit = kitCommit
        self.seed = seed
        self.target = target
        self.bases = bases
        self.variables = variables
        self.tags = tags
        self.filters = filters
        self.steps = steps
        self.shard = shard
        self.failFast = failFast
        self.allowedHosts = allowedHosts
        self.suites = suites
        self.failures = failures
    }

    /// The document `bundle.json` holds.
    public var json: JSONValue {
        func strings(_ items: [String]) -> JSONValue { .array(items.map { .string($0) }) }
        func map(_ items: [String: String]) -> JSONValue {
            .object(JSONObject(items.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
        }
        var object = JSONObject([
            ("format", .int(shards.isEmpty ? Self.format : Self.mergedFormat)),
            ("kit", ["version": .string(kitVersion), "commit": .string(kitCommit)]),
            ("seed", .string(seed)), ("target", .string(target)), ("bases", map(bases)),
            ("variables", map(variables)), ("tags", strings(tags)), ("filters", strings(filters)),
            ("steps", strings(steps)), ("shard", shard.map { .string($0) } ?? .null), ("failFast", .bool(failFast)),
            ("allowedHosts", strings(allowedHosts)), ("suites", strings(suites)),
            (
                "failures",
                .array(
                    failures.map {
                        ["tag": .string($0.tag), "kind": .string($0.kind), "message": .string($0.message)]
                    })
            ),
            ("pseudonyms", map(pseudonyms)),
        ])
        if !shards.isEmpty { object["shards"] = strings(shards) }
        return .object(object)
    }

    /// The largest `bundle.json` read (256 MiB), refused before it is read: a million pseudonyms
    /// (``BundlePseudonyms/maxValues``) take about 110 MB.
    public static let maxFileBytes = 256 << 20

    /// Reads `bundle.json`, naming the member that is missing or wrong.
    public init(json data: Data) throws(BundleProblem) { try self.init(json: [UInt8](data)) }

    /// Reads `bundle.json` from its bytes, in place: its members are parsed one by one, and the two that grow with
    /// the run (`pseudonyms`, `failures`) one entry at a time, so no tree of the whole document is ever held. A
    /// text laid out otherwise is parsed whole, within ``JSONValue/memoryBudget(forDocumentOf:)``.
    public init(json bytes: [UInt8]) throws(BundleProblem) {
        let file = CertificationBundle.infoFile
        func fail(_ what: String) -> BundleProblem {
            BundleProblem(file: file, what, help: "the file is written by 'conform run --bundle DIR'; do not edit it")
        }
        func string(_ v: JSONValue?, _ path: String) throws(BundleProblem) -> String {
            guard let s = v?.stringValue, s.utf8.count <= 65536 else { throw fail("\(path): expected a string") }
            return s
        }
        func failure(_ item: JSONValue, _ i: Int) throws(BundleProblem) -> Failure {
            Failure(
                tag: try string(item["tag"], "$.failures[\(i)].tag"),
                kind: try string(item["kind"], "$.failures[\(i)].kind"),
                message: try string(item["message"], "$.failures[\(i)].message"))
        }
        let root: JSONValue
        var pseudonyms: [String: String] = [:]
        var failures: [Failure] = []
        if let read = try? Self.members(bytes), let entries = FlatJSONReader.entries(bytes, read) {
            root = read.root
            (pseudonyms, failures) = entries
        } else {
            do {
                root = try JSONValue.parse(
                    bytes: bytes, memoryBudget: JSONValue.memoryBudget(forDocumentOf: bytes.count))
            } catch { throw fail("is not JSON: \(error)") }
            pseudonyms = try Self.map(root["pseudonyms"], "$.pseudonyms", fail: fail)
            guard let list = root["failures"]?.arrayValue, list.count <= 1_000_000 else {
                throw fail("$.failures: expected a list")
            }
            for (i, item) in list.enumerated() { failures.append(try failure(item, i)) }
        }
        let merged = root["format"] == .int(Self.mergedFormat)
        guard root["format"] == .int(Self.format) || merged else {
            throw fail("$.format: expected \(Self.format) (or \(Self.mergedFormat), a bundle merged from shards)")
        }
        func strings(_ v: JSONValue?, _ path: String) throws(BundleProblem) -> [String] {
            guard let items = v?.arrayValue, items.count <= BundleManifest.maxFiles else {
                throw fail("\(path): expected a list of strings")
            }
            var out: [String] = []
            for (i, item) in items.enumerated() { out.append(try string(item, "\(path)[\(i)]")) }
            return out
        }
        guard let failFast = root["failFast"]?.boolValue else { throw fail("$.failFast: expected true or false") }
        self.init(
            kitVersion: try string(root["kit"]?["version"], "$.kit.version"),
            kitCommit: try string(root["kit"]?["commit"], "$.kit.commit"), seed: try string(root["seed"], "$.seed"),
            target: try string(root["target"], "$.target"),
            bases: try Self.map(root["bases"], "$.bases", fail: fail),
            variables: try Self.map(root["variables"], "$.variables", fail: fail),
            tags: try strings(root["tags"], "$.tags"),
            filters: try strings(root["filters"], "$.filters"), steps: try strings(root["steps"], "$.steps"),
            shard: root["shard"] == .null ? nil : try string(root["shard"], "$.shard"), failFast: failFast,
            allowedHosts: try strings(root["allowedHosts"], "$.allowedHosts"),
            suites: try strings(root["suites"], "$.suites"), failures: failures, pseudonyms: pseudonyms)
        if merged {
            shards = try strings(root["shards"], "$.shards")
            guard !shards.isEmpty, shards.count <= Shard.maxCount else {
                throw fail("$.shards: expected the directories of 1 to \(Shard.maxCount) shards")
            }
        } else if root["shards"] != nil {
            throw fail("$.shards: only a bundle merged from shards (format \(Self.mergedFormat)) names shards")
        }
    }

    /// The top-level members of `bundle.json` parsed, but `pseudonyms` and `failures`, whose places are given;
    /// `nil` (or an error) when the text is not laid out as the writer lays it out.
    private static func members(_ bytes: [UInt8]) throws(RunReportError) -> (
        root: JSONValue, pseudonyms: Range<Int>?, failures: Range<Int>?
    )? {
        let spans = JSONSpans(bytes: bytes)
        guard let members = spans.members(0..<bytes.count) else { return nil }
        var root = JSONObject()
        var pseudonyms: Range<Int>?, failures: Range<Int>?
        for (key, range) in members {
            switch key {
            case "pseudonyms": pseudonyms = range
            case "failures": failures = range
            default: root[key] = try spans.parse(range, source: CertificationBundle.infoFile)
            }
        }
        return (.object(root), pseudonyms, failures)
    }

    /// An object of strings, at `path`.
    private static func map(_ v: JSONValue?, _ path: String, fail: (String) -> BundleProblem) throws(BundleProblem)
        -> [String: String]
    {
        guard let o = v?.objectValue, o.keys.count <= BundlePseudonyms.maxValues else {
            throw fail("\(path): expected an object of strings")
        }
        var out: [String: String] = [:]
        for key in o.keys {
            guard let s = o[key]?.stringValue, s.utf8.count <= 65536 else {
                throw fail("\(path).\(key): expected a string")
            }
            out[key] = s
        }
        return out
    }
}
