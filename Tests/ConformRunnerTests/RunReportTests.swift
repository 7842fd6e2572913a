import ConformCore
import ConformReport
import ConformRunner
import Foundation
import FoundationXML
import Testing

/// Shards and JSON reports read back: what `conform merge` rests on.
@Suite struct RunReportTests {
    func json(_ result: RunResult, placement: ShardPlacement? = nil) -> Data {
        Data(
            JSONReporter(sink: MemorySink(), deterministic: true, placement: placement).render(result).serialized(
                .pretty
            ).utf8)
    }

    func html(_ result: RunResult) -> String {
        HTMLReporter(sink: MemorySink(), date: "2025-06-01 09:30:00 UTC", deterministic: true).render(result)
    }

    func junit(_ result: RunResult) -> String { JUnitReporter(sink: MemorySink(), deterministic: true).render(result) }

    @Test func theHashIsFNV1aAndTheSameInEveryProcess() {
        #expect(Shard.stableHash("") == 0xcbf2_9ce4_8422_2325)
        #expect(Shard.stableHash("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(Shard.stableHash("foobar") == 0x8594_4171_f739_67e8)
        #expect(Shard.shardIndex(of: "registration", count: 1) == 1)
    }

    @Test func shardsSplitSuitesIntoDisjointSlicesThatCoverThePlan() throws {
        let suites = (0..<40).map { Suite(id: "suite-\($0)", title: "", flows: []) }
        for count in [1, 2, 3, 4, 7] {
            var seen: [Int] = []
            for index in 1...count {
                let shard = try #require(Shard(index: index, count: count))
                let (picked, placement) = ShardPlacement.select(suites, shard: shard)
                #expect(picked.map(\.id) == placement.positions.map { suites[$0].id })
                #expect(placement.positions == placement.positions.sorted())
                #expect(placement.planSuites == 40)
                seen += placement.positions
            }
            #expect(seen.sorted() == Array(0..<40))
        }
        #expect(Shard(index: 0, count: 2) == nil)
        #expect(Shard(index: 3, count: 2) == nil)
        #expect(Shard(index: 1, count: 1001) == nil)
        #expect(Shard(index: 1, count: 0) == nil)
    }

    /// Reading a JSON report back renders the same JSON, HTML and JUnit, secrets masked once and only once.
    @Test(arguments: [false, true]) func aReportReadBackRendersTheSamePages(certification: Bool) async throws {
        let original = certification ? try await certificationRun() : try await ReporterTests().mixedRun()
        let data = json(original)
        let read = try RunReport.read(data, source: "r.json")
        #expect(read.placement == .whole(suiteCount: original.suites.count))
        #expect(read.result.exitCode == original.exitCode)
        #expect(read.result.counts == original.counts)
        #expect(String(decoding: json(read.result), as: UTF8.self) == String(decoding: data, as: UTF8.self))
        #expect(html(read.result) == html(original))
        #expect(junit(read.result) == junit(original))
    }

    @Test func shardsMergeBackIntoThePlanOrder() async throws {
        let run = try await certificationRun()
        let count = run.suites.count
        #expect(count >= 2)
        // Two shards by hand: the odd positions and the even ones, given in reverse order.
        var reports: [RunReport] = []
        for index in [2, 1] {
            let positions = (0..<count).filter { $0 % 2 == index - 1 }
            var part = RunResult(suites: positions.map { run.suites[$0] }, duration: 0, target: run.target)
            part.contactedOrigins = index == 1 ? [run.contactedOrigins[0]] : Array(run.contactedOrigins.dropFirst())
            let placement = ShardPlacement(
                shard: try #require(Shard(index: index, count: 2)), planSuites: count, positions: positions)
            reports.append(try RunReport.read(json(part, placement: placement), source: "shard-\(index).json"))
        }
        let merged = try RunReport.merge(reports)
        #expect(html(merged.result) == html(run))
        #expect(junit(merged.result) == junit(run))
        #expect(merged.result.exitCode == run.exitCode)
    }

    @Test func mergeRefusesReportsThatDoNotMakeOneRun() async throws {
        let run = try await ReporterTests().mixedRun()
        func report(_ index: Int, of count: Int, positions: [Int], plan: Int = 1, source: String? = nil) throws
            -> RunReport
        {
            let part = RunResult(suites: positions.map { _ in run.suites[0] }, duration: 0, target: run.target)
            let placement = ShardPlacement(
                shard: try #require(Shard(index: index, count: count)), planSuites: plan, positions: positions)
            return try RunReport.read(json(part, placement: placement), source: source ?? "s\(index).json")
        }
        func message(_ reports: [RunReport]) -> String {
            do {
                _ = try RunReport.merge(reports)
                return "merged"
            } catch { return error.description }
        }
        #expect(message([try report(1, of: 2, positions: [0], plan: 2)]).contains("lack shard 2/2"))
        #expect(
            message([try report(1, of: 2, positions: [0], plan: 2), try report(1, of: 2, positions: [1], plan: 2)])
                .contains("shard 1/2 is given twice: s1.json and s1.json"))
        #expect(
            message([try report(1, of: 2, positions: [0], plan: 2), try report(1, of: 1, positions: [0])]).contains(
                "is shard 1/1 but"))
        #expect(
            message([try report(1, of: 2, positions: [0], plan: 2), try report(2, of: 2, positions: [0], plan: 2)])
                .contains("claims plan position 0"))
        #expect(message([]).contains("no reports"))
        // A hostile plan size is refused before anything is allocated for it.
        #expect(
            message([try report(1, of: 1, positions: [0], plan: 10_000_000)]).contains(
                "hold 1 suites but the plan has 10000000"))
    }

    @Test func unreadableReportsSayWhereAndWhy() {
        func message(_ text: String) -> String {
            do {
                _ = try RunReport.read(Data(text.utf8), source: "r.json")
                return "read"
            } catch { return error.description }
        }
        #expect(message("{\n  \"tool\": \"conform\",\n  oops }").hasPrefix("error: r.json:3:3: not a JSON report"))
        #expect(message("[]").contains("r.json: $: expected an object"))
        #expect(message("{\"tool\":\"other\"}").contains("$.tool: not a Conform JSON report"))
        #expect(
            message(
                #"{"tool":"conform","target":"t","duration":1,"suites":[],"shard":{"index":3,"count":2,"planSuites":0}}"#
            )
            .contains("$.shard.index: 3 is outside 1...2"))
        #expect(
            message(#"{"tool":"conform","target":"t","duration":-1,"suites":[]}"#).contains(
                "$.duration: expected a number of seconds"))
        #expect(
            message(#"{"tool":"conform","target":"t","duration":1,"suites":[{"id":1}]}"#).contains(
                "$.suites[0].spec: expected an object"))
    }

    /// A repeated run's flaky steps read back: the same JSON and console summary as the run that wrote them.
    @Test func theFlakyStepsOfARepeatedRunAreReadBack() async throws {
        var run = try await ReporterTests().mixedRun()
        let step = run.suites[0].steps[0]
        run.repetitions = 3
        run.flaky = [
            FlakyStep(
                suiteID: step.suiteID, flow: step.flow, index: step.index, name: step.name,
                location: "\(step.file):\(step.mark)", verdicts: [.pass, .fail, .pass])
        ]
        let data = json(run)
        let read = try RunReport.read(data, source: "r.json")
        #expect(read.result.repetitions == 3)
        #expect(read.result.flaky == run.flaky)
        #expect(String(decoding: json(read.result), as: UTF8.self) == String(decoding: data, as: UTF8.self))
        func summary(_ result: RunResult) -> String {
            let sink = MemorySink()
            ConsoleReporter(sink: sink).handle(.runFinished(result))
            return sink.text
        }
        #expect(summary(read.result) == summary(run))
        #expect(summary(read.result).contains("Flaky (the verdict changed):"))
    }

    @Test func hostileFlakyStepsSayWhereAndWhy() async throws {
        var run = try await ReporterTests().mixedRun()
        run.repetitions = 2
        let root = try JSONValue.parse(json(run))
        let suiteID = run.suites[0].group.id
        func message(_ change: (inout JSONObject) -> Void) -> String {
            guard var object = root.objectValue else { return "no object" }
            change(&object)
            do {
                _ = try RunReport.read(Data(JSONValue.object(object).serialized().utf8), source: "r.json")
                return "read"
            } catch { return error.description }
        }
        func flaky(_ entry: JSONValue) -> (inout JSONObject) -> Void { { $0["flaky"] = .array([entry]) } }
        let good: JSONValue = [
            "suite": .string(suiteID), "flow": "main", "index": 1, "name": "n", "location": "f.yaml:1:1",
            "verdicts": ["pass", "fail"],
        ]
        func with(_ key: String, _ value: JSONValue?) -> JSONValue {
            var entry = good.objectValue ?? JSONObject()
            entry[key] = value
            return .object(entry)
        }
        #expect(message(flaky(good)) == "read")
        #expect(message { $0["repetitions"] = nil }.contains("r.json: $.flaky: flaky steps without 'repetitions'"))
        #expect(message { $0["repetitions"] = 1 }.contains("$.repetitions: 1 is outside 2...1000"))
        #expect(message { $0["repetitions"] = 1_000_000 }.contains("$.repetitions: 1000000 is outside 2...1000"))
        #expect(message { $0["repetitions"] = "2" }.contains("$.repetitions: expected a whole number"))
        #expect(message { $0["flaky"] = nil }.contains("$.flaky: expected an array"))
        #expect(message { $0["flaky"] = "x" }.contains("$.flaky: expected an array"))
        #expect(message(flaky("x")).contains("$.flaky[0]: expected an object"))
        #expect(message(flaky(with("suite", "nowhere"))).contains("$.flaky[0].suite: no suite 'nowhere' in the report"))
        #expect(message(flaky(with("suite", 7))).contains("$.flaky[0].suite: expected a string"))
        #expect(message(flaky(with("index", 0))).contains("$.flaky[0].index: 0 is outside 1...10000000"))
        #expect(message(flaky(with("name", nil))).contains("$.flaky[0].name: expected a string"))
        #expect(
            message(flaky(with("verdicts", ["pass"]))).contains("$.flaky[0].verdicts: 1 verdicts; a flaky step has"))
        #expect(
            message(flaky(with("verdicts", ["pass", "fail", "pass"]))).contains(
                "$.flaky[0].verdicts: 3 verdicts; a flaky step has from 2 to 2"))
        #expect(
            message(flaky(with("verdicts", ["pass", "maybe"]))).contains("$.flaky[0].verdicts[1]: unknown verdict"))
        let many = JSONValue.array(Array(repeating: good, count: run.stepCount + 1))
        #expect(message { $0["flaky"] = many }.contains("$.flaky: \(run.stepCount + 1) flaky steps, but the report"))
    }
    /// A severity or kind read back is one of its closed set: a crafted shard cannot carry markup into the pages.
    @Test func valuesReadBackAreFromTheirClosedSets() async throws {
        let root = try JSONValue.parse(json(try await ReporterTests().mixedRun()))
        let text = root.serialized()
        #expect(text.contains(#""severity":"must""#))
        func message(_ changed: String) -> String {
            do {
                _ = try RunReport.read(Data(changed.utf8), source: "shard.json")
                return "read"
            } catch { return error.description }
        }
        let injected = text.replacingOccurrences(
            of: #""severity":"must""#, with: #""severity":"must\" injected=\"x""#)
        #expect(message(injected).contains(#"shard.json: $.suites[0].steps["#))
        #expect(message(injected).contains(#"].failures[0].severity: unknown severity 'must" injected="x'"#))
        #expect(message(injected).contains("expected one of: must, should, assumed"))
        #expect(message(text.replacingOccurrences(of: #""severity":"must""#, with: #""severity":"<b>""#)) != "read")
        #expect(
            message(text.replacingOccurrences(of: #""tool":"conform""#, with: #""tool":"conform","kind":"x""#))
                .contains("$.kind: unknown kind 'x'; expected conformance or comparison"))
    }

    /// The JUnit writer escapes the failure type too, whatever severity a result holds.
    @Test func theJUnitFailureTypeIsEscaped() async throws {
        var run = try await ReporterTests().mixedRun()
        let hostile = Severity(rawValue: "must\" injected=\"x\"><y a=\"&")
        for (s, suite) in run.suites.enumerated() {
            for (i, step) in suite.steps.enumerated() where !step.failures.isEmpty {
                for f in step.failures.indices { run.suites[s].steps[i].failures[f].severity = hostile }
            }
        }
        let types = try #require(FailureTypes(junit(run)), "the JUnit document parses as XML")
        #expect(types.values == [hostile.rawValue])
    }
}

extension RunReportTests {
    /// A report is read step by step, its exchanges spooled when asked: the same run as one parsed whole (a text
    /// the scan does not follow, here a repeated key, is parsed whole).
    @Test func aReportReadStepByStepIsTheSameRun() async throws {
        let original = try await ReporterTests().mixedRun()
        let data = json(original)
        let text = String(decoding: data, as: UTF8.self)
        let whole = try RunReport.read(
            Data(text.replacingOccurrences(of: #""tool""#, with: #""x": 1, "x": 1, "tool""#).utf8), source: "r.json")
        let spool = try ExchangeSpool()
        let spooled = try RunReport.read(data, source: "r.json", spool: spool)
        #expect(spooled.result.suites.flatMap(\.steps).contains { $0.hasExchange })
        for read in [whole, spooled, try RunReport.read(data, source: "r.json")] {
            #expect(junit(read.result) == junit(original))
            #expect(html(read.result) == html(original))
            #expect(String(decoding: json(read.result), as: UTF8.self) == text)
        }
    }

    /// A syntax error inside one step names its line and column in the whole file, as a whole parse would.
    @Test func anErrorInsideAStepNamesItsPlaceInTheFile() async throws {
        let text = String(decoding: json(try await ReporterTests().mixedRun()), as: UTF8.self)
        let broken = text.replacingOccurrences(of: #""verdict": "skipped""#, with: #""verdict": skipped"#)
        #expect(broken != text)
        let offset = try #require(broken.range(of: ": skipped"))
        let before = broken[..<offset.lowerBound]
        let line = before.filter { $0 == "\n" }.count + 1
        #expect {
            try RunReport.read(Data(broken.utf8), source: "r.json")
        } throws: { error in
            "\(error)".contains("r.json:\(line):") && "\(error)".contains("not a JSON report")
        }
    }

    /// A step of more JSON values than its text could hold in a written report is refused, naming the limit.
    @Test func aStepOfTooManyValuesIsRefused() async throws {
        let text = String(decoding: json(try await ReporterTests().mixedRun()), as: UTF8.self)
        let many = Array(repeating: #"{"path":"","expected":"","actual":""}"#, count: 60_000).joined(separator: ",")
        let crowded = text.replacingOccurrences(of: #""mismatches": ["#, with: #""mismatches": [\#(many),"#)
        #expect(crowded != text)
        #expect {
            try RunReport.read(Data(crowded.utf8), source: "r.json")
        } throws: { error in
            "\(error)".contains("more than 200000 values")
        }
    }
}

/// The `type` attributes of every `failure` element of a JUnit document, read by Foundation's XML parser.
private final class FailureTypes: NSObject, XMLParserDelegate {
    var values: [String] = []
    var injected = false

    init?(_ document: String) {
        super.init()
        let parser = XMLParser(data: Data(document.utf8))
        parser.delegate = self
        guard parser.parse(), !injected else { return nil }
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        if elementName == "failure" { values.append(attributeDict["type"] ?? "") }
        if elementName == "y" || attributeDict["injected"] != nil { injected = true }
    }
}
