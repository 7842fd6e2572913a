import ConformCLI
import ConformReport
import ConformRunner
import ConformTestSupport
import Foundation
import Testing

/// `conform run --shard K/N` and `conform merge`: the shards of a run add up to that run.
@Suite struct ShardMergeTests {

    func conform(_ args: [String]) async -> (code: Int32, out: String, err: String) {
        await TrafficCommandTests().conform(args)
    }

    /// What differs between two runs of the embedded reference: minted ids, generated phone numbers, clocks, masked
    /// session suffixes.
    static func masked(_ text: String) -> String {
        text.replacing(#/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/#, with: "UUID")
            .replacing(#/"duration": [0-9.e+-]+/#, with: "\"duration\": 0")
            .replacing(#/time="[0-9.]+"/#, with: "time=\"0\"")
            .replacing(#/\d{4}-\d\d-\d\d[T ][0-9:.]+(Z| UTC)/#, with: "DATE")
            .replacing(#/ in [0-9.]+ s/#, with: " in T s")
            .replacing(#/<dd>[0-9.]+ m?s</dd>/#, with: "<dd>T</dd>")
            .replacing(#/447700900\d{3}/#, with: "PHONE")
            .replacing(#/\d{13}/#, with: "EPOCH")
            .replacing(#/••••[^\s"<&]{4}/#, with: "••••XXXX")
            // The command line is each run's own (a merge keeps the first shard's).
            .replacing(#/"commandLine": \[[^\]]*\]/#, with: "\"commandLine\": []")
            .replacing(#/<property name="commandLine" value="[^"]*"\/>/#, with: "<property name=\"commandLine\"/>")
            .replacing(#/<pre class="body">conform [^<]*<\/pre>/#, with: "<pre class=\"body\">COMMAND</pre>")
    }

    static let kinds = ["json", "junit", "html"]

    /// For N = 1, 2 and 4 with the reference conforming, and N = 4 with a fault: the merged reports, console output
    /// and exit code are those of one unsharded run, once ids and times are masked.
    @Test(arguments: zip([1, 2, 4, 4], [nil, nil, nil, "personalizeNotIdempotent"]))
    func mergedShardsReportLikeOneRun(count: Int, fault: String?) async throws {
        let scratch = try Scratch()
        let faultArgs = fault.map { ["--fault", $0] } ?? []
        let whole = await conform(
            ["run", "--no-color"] + faultArgs
                + Self.kinds.flatMap { ["--report", "\($0):\(scratch.path("whole.\($0)"))"] })
        #expect(whole.code == (fault == nil ? 0 : 1), "\(whole.out)\(whole.err)")
        var shardFiles: [String] = []
        var suitesRun = 0
        for index in 1...count {
            let file = scratch.path("shard-\(index).json")
            let shard = await conform(
                ["run", "--no-color", "--shard", "\(index)/\(count)", "--report", "json:\(file)"] + faultArgs)
            #expect([0, 1].contains(shard.code), "\(shard.out)\(shard.err)")
            let report = try RunReport.read(try Data(contentsOf: URL(fileURLWithPath: file)), source: file)
            #expect(report.placement.shard.description == "\(index)/\(count)")
            suitesRun += report.result.suites.count
            shardFiles.append(file)
        }
        #expect(suitesRun == (try SuitesBundle.files().count), "every bundled suite runs in exactly one shard")
        let merged = await conform(
            ["merge", "--no-color"] + shardFiles.reversed()
                + Self.kinds.flatMap { ["--report", "\($0):\(scratch.path("merged.\($0)"))"] })
        #expect(merged.code == whole.code, "\(merged.out)\(merged.err)")
        #expect(merged.err.isEmpty)
        #expect(Self.masked(merged.out) == Self.masked(whole.out))
        for kind in Self.kinds {
            let a = try String(contentsOfFile: scratch.path("whole.\(kind)"), encoding: .utf8)
            let b = try String(contentsOfFile: scratch.path("merged.\(kind)"), encoding: .utf8)
            let (ma, mb) = (Self.masked(a), Self.masked(b))
            if ma != mb {
                let line = zip(ma.split(separator: "\n"), mb.split(separator: "\n")).first { $0 != $1 }
                Issue.record("the merged \(kind) report differs from the unsharded one: \(String(describing: line))")
            }
        }
    }

    @Test(arguments: [
        "0/4", "5/4", "1/1001", "0/0", "a/b", "1/", "/2", "-1/2", "+1/2", "1/2/3", " 1/2", "1/2 ", "1.0/2",
        "99999999999999999999/1", "１/２", "1\u{0}/2", "",
    ])
    func hostileShardValuesAreUsageErrors(value: String) async {
        let result = await conform(["run", "--shard", value])
        #expect(result.code == 64)
        #expect(result.err.hasPrefix("Error: --shard"), "\(result.err)")
        #expect(result.err.contains("See 'conform run --help'"))
        #expect(!result.err.contains("\u{0}"))
    }

    @Test func mergeRefusesAnIncompleteSetOfShards() async throws {
        let scratch = try Scratch()
        let file = scratch.path("shard-1.json")
        #expect(await conform(["run", "--shard", "1/3", "--report", "json:\(file)"]).code == 0)
        let merged = await conform(["merge", file, "--report", "html:\(scratch.path("m.html"))"])
        #expect(merged.code == 2)
        #expect(merged.err.contains("error: the reports lack shards 2/3, 3/3"))
        #expect(merged.err.contains("help: a merge needs every shard"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("m.html")))
        let twice = await conform(["merge", file, file])
        #expect(twice.code == 2)
        #expect(twice.err.contains("shard 1/3 is given twice"))
        let missing = await conform(["merge", scratch.path("none.json")])
        #expect(missing.code == 2)
        #expect(missing.err.contains("cannot read \(scratch.path("none.json"))"))
        let usage = await conform(["merge"])
        #expect(usage.code == 64)
        #expect(usage.err.contains("See 'conform merge --help'"))
        let badKind = await conform(["merge", file, "--report", "pdf:x"])
        #expect(badKind.code == 64)
    }
}
