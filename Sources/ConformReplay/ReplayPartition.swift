import ConformCore
import ConformReport
import ConformTraffic

/// Which exchanges of a recording one shard of a replay sends: whole groups of device flows that share a person.
///
/// Devices logged in as the same person depend on each other (one device's update shows in the other's reads), and
/// a backend call about a person acts on all of that person's devices; so the flows and persons linked by any
/// exchange form one group, and a group goes to one shard by the FNV-1a hash of its smallest member. Backend calls go
/// with the persons they name; backend calls that name no person go to shard 1. Every shard builds the same groups
/// from the same recording, so the shards split it without talking to each other.
public struct ReplayPartition: Sendable, Hashable {
    public let shard: Shard
    /// The group key of each device flow and person.
    private let groupOf: [String: String]
    /// How many groups the recording holds, and how many of them are this shard's.
    public let groupCount: Int
    public let ownedGroupCount: Int

    /// Builds the groups from a first pass over the exchanges of a recording.
    public static func build<S: AsyncSequence>(_ exchanges: S, shard: Shard) async throws -> ReplayPartition
    where S.Element == RecordedExchange {
        var links = UnionFind()
        for try await exchange in exchanges {
            let persons =
                (PersonLinks.persons(in: exchange.request.body) + PersonLinks.persons(in: exchange.response.body))
                .map { "person:" + $0 }
            var nodes = persons
            if exchange.flow != RecordedExchange.backendFlow { nodes.append("flow:" + exchange.flow) }
            guard let first = nodes.first else { continue }
            links.add(first)
            for node in nodes.dropFirst() { links.union(first, node) }
        }
        return ReplayPartition(shard: shard, groups: links.groups())
    }

    /// Builds the groups from exchanges held in memory (a HAR file).
    public static func build(_ exchanges: [RecordedExchange], shard: Shard) async throws -> ReplayPartition {
        try await build(AsyncArraySequence(exchanges), shard: shard)
    }

    init(shard: Shard, groups: [String: String]) {
        self.shard = shard
        self.groupOf = groups
        let keys = Set(groups.values)
        groupCount = keys.count
        ownedGroupCount = keys.filter { shard.owns($0) }.count
    }

    /// Whether this shard sends `exchange`.
    public func owns(_ exchange: RecordedExchange) -> Bool {
        if exchange.flow != RecordedExchange.backendFlow, let key = groupOf["flow:" + exchange.flow] {
            return shard.owns(key)
        }
        for person in PersonLinks.persons(in: exchange.request.body) + PersonLinks.persons(in: exchange.response.body) {
            if let key = groupOf["person:" + person] { return shard.owns(key) }
        }
        return shard.index == 1
    }
}

/// Disjoint sets of names, for grouping flows and persons.
struct UnionFind {
    private var parent: [String: String] = [:]

    mutating func add(_ node: String) { if parent[node] == nil { parent[node] = node } }

    mutating func find(_ node: String) -> String {
        add(node)
        var root = node
        while let p = parent[root], p != root { root = p }
        var current = node
        while let p = parent[current], p != root {
            parent[current] = root
            current = p
        }
        return root
    }

    mutating func union(_ a: String, _ b: String) {
        let ra = find(a), rb = find(b)
        if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
    }

    /// Each node's group key: the smallest name in its group, the same whatever order the links came in.
    mutating func groups() -> [String: String] {
        var smallest: [String: String] = [:]
        for node in Array(parent.keys) {
            let root = find(node)
            smallest[root] = min(smallest[root] ?? node, node)
        }
        var out: [String: String] = [:]
        for node in Array(parent.keys) { out[node] = smallest[find(node)] }
        return out
    }
}
