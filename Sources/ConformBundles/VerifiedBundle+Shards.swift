import ConformReport
import ConformTraffic
import Foundation

/// A bundle merged from the bundles of every shard of one run (`conform merge --bundle`): the plan's files once,
/// and each shard's own `bundle.json` and log under `shards/K`, judged again shard by shard.
extension VerifiedBundle {
    /// What one log answers: the whole run's, or one shard's in a merged bundle.
    public struct Part: Sendable {
        /// The shard's directory inside the bundle (`shards/2`); empty for the bundle of one run.
        public var directory: String
        /// The run's `bundle.json`, or the shard's own.
        public var info: BundleInfo
        public var transport: ExchangeLogTransport

        /// The shard's file `name`, as the bundle names it.
        public func file(_ name: String) -> String { directory.isEmpty ? name : directory + "/" + name }
    }

    /// The parts of a bundle: its own log, or, merged, each shard's `bundle.json` and log, each shard's
    /// `bundle.json` required to be of the same plan as the bundle's (kit, target, variables, selection, suites)
    /// and the shards to be 1 to N of one N, each once.
    static func parts(of info: BundleInfo, in directory: String) throws(BundleProblem) -> [Part] {
        guard !info.shards.isEmpty else {
            return [
                Part(
                    directory: "", info: info,
                    transport: try ExchangeLogTransport(
                        directory: (directory as NSString).appendingPathComponent(CertificationBundle.logDirectory),
                        info: info))
            ]
        }
        var parts: [Part] = []
        var count: Int?
        var seen: Set<Int> = []
        for name in info.shards {
            let file = name + "/" + CertificationBundle.infoFile
            let shardInfo: BundleInfo
            do {
                shardInfo = try BundleInfo(json: try Self.bytes(file, in: directory, limit: BundleInfo.maxFileBytes))
            } catch {
                throw BundleProblem(file: file, error.message, help: error.help)
            }
            if let difference = Self.planDifference(shardInfo, info) {
                throw BundleProblem(
                    file: file, "is not a shard of the merged run: \(difference)",
                    help: "the file was changed; ask for the bundle as 'conform merge --bundle' wrote it")
            }
            guard let text = shardInfo.shard, let shard = Self.shard(text), shardInfo.shards.isEmpty,
                count == nil || count == shard.count, seen.insert(shard.index).inserted
            else {
                throw BundleProblem(
                    file: file,
                    "names shard '\(shardInfo.shard ?? "none")', which is not one more shard of the merged run's \(count.map { "\($0)" } ?? "N")",
                    help: "the file was changed; ask for the bundle as 'conform merge --bundle' wrote it")
            }
            count = shard.count
            let transport: ExchangeLogTransport
            do {
                transport = try ExchangeLogTransport(
                    directory: (directory as NSString).appendingPathComponent(
                        name + "/" + CertificationBundle.logDirectory), info: shardInfo)
            } catch {
                throw BundleProblem(file: name + "/" + error.file, error.message, help: error.help)
            }
            parts.append(Part(directory: name, info: shardInfo, transport: transport))
        }
        if let count, seen.count != count {
            let missing = (1...count).filter { !seen.contains($0) }.prefix(10).map { "\($0)/\(count)" }
            throw BundleProblem(
                file: CertificationBundle.infoFile,
                "$.shards: the merged run lacks shard \(missing.joined(separator: ", "))",
                help: "the file was changed; ask for the bundle as 'conform merge --bundle' wrote it")
        }
        return parts
    }

    /// `K/N`, or `nil` when it is not one.
    static func shard(_ text: String) -> Shard? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ (1...4).contains($0.count) && $0.allSatisfy(\.isASCII) }),
            let k = Int(parts[0]), let n = Int(parts[1])
        else { return nil }
        return Shard(index: k, count: n)
    }

    /// What makes the run of `a` another plan than the run of `b` (kit, target, bases, variables, selection,
    /// `--fail-fast`, allowed hosts, suite files), in words; `nil` when they are one plan.
    public static func planDifference(_ a: BundleInfo, _ b: BundleInfo) -> String? {
        if a.kitVersion != b.kitVersion || a.kitCommit != b.kitCommit {
            return
                "written by conform \(a.kitVersion) (commit \(a.kitCommit)), not conform \(b.kitVersion) (commit \(b.kitCommit))"
        }
        if a.target != b.target { return "run against \(a.target), not \(b.target)" }
        if a.bases != b.bases { return "its target's base URLs differ" }
        if a.variables != b.variables {
            let names = Set(a.variables.keys).union(b.variables.keys).filter { a.variables[$0] != b.variables[$0] }
            return "the value of \(names.sorted().prefix(5).joined(separator: ", ")) differs"
        }
        if a.tags != b.tags || a.filters != b.filters || a.steps != b.steps {
            return "its selection (--tag, --filter, --step) differs"
        }
        if a.failFast != b.failFast { return "one was run with --fail-fast and the other not" }
        if a.allowedHosts != b.allowedHosts { return "its --allow-host hosts differ" }
        if a.suites != b.suites { return "its suite files differ (\(a.suites.count) and \(b.suites.count) files)" }
        return nil
    }

    /// Refuses shard directories that are not plain relative paths or that the manifest lists no file under.
    static func checkShardNames(_ info: BundleInfo) throws(BundleProblem) {
        for name in info.shards
        where !BundleManifest.isPlainRelative(name) || Set(info.shards).count != info.shards.count {
            throw BundleProblem(
                file: CertificationBundle.infoFile,
                "$.shards: '\(name)' is not a plain relative directory inside the bundle, or is named twice",
                help: "the file is written by 'conform merge --bundle'; do not edit it")
        }
    }
}
