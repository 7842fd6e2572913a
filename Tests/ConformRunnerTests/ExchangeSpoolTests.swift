import ConformCore
import ConformDiagnostics
import ConformReport
import ConformYAML
import Foundation
import Testing

/// Steps whose exchanges sit in a spool on disk render exactly as steps that keep them in memory.
@Suite struct ExchangeSpoolTests {
    func spooled(_ result: RunResult, _ spool: ExchangeSpool) -> RunResult {
        var out = result
        for s in out.suites.indices {
            out.suites[s].steps = out.suites[s].steps.map { $0.spooled(into: spool) }
        }
        return out
    }

    @Test func everyReporterRendersASpooledRunAsTheRunInMemory() async throws {
        let result = try await certificationRun()
        let spool = try ExchangeSpool()
        let onDisk = spooled(result, spool)
        #expect(onDisk.suites.flatMap(\.steps).contains { $0.hasExchange })
        #expect(onDisk.steps.map(\.request) == result.steps.map(\.request))
        #expect(
            JUnitReporter(sink: MemorySink(), deterministic: true).render(onDisk)
                == JUnitReporter(sink: MemorySink(), deterministic: true).render(result))
        let html = HTMLReporter(sink: MemorySink(), date: "d", deterministic: true)
        #expect(html.render(onDisk) == html.render(result))
        let a = MemorySink()
        let b = MemorySink()
        JSONReporter(sink: a, deterministic: true).handle(.runFinished(onDisk))
        JSONReporter(sink: b, deterministic: true).handle(.runFinished(result))
        #expect(a.text == b.text)
        // The streamed document is the rendered value, laid out as serialized(.pretty) lays it out.
        #expect(a.text == JSONReporter(sink: a, deterministic: true).render(result).serialized(.pretty) + "\n")
    }

    @Test func anExchangeComesBackByteForByte() throws {
        let spool = try ExchangeSpool()
        let request = HTTPRequest(
            method: HTTPMethod("PATCH"), url: "http://h/a?b=ü", headerFields: ["X-A": "1", "x-a": "2"],
            body: Data([0, 0xFF, 0x0A]))
        let response = HTTPResponse(
            status: HTTPStatus(418), headerFields: ["Set-Cookie": "s=1"], body: Data("{}".utf8),
            timing: HTTPTiming(total: 0.25, connect: 0.01, firstByte: 0.2, reusedConnection: true))
        let step = StepResult(
            suiteID: "s", flow: "f", index: 0, name: "n", file: "x.yaml", mark: SourceMark(line: 1, column: 1),
            spec: SpecReference(), verdict: .fail, request: request, response: response
        ).spooled(into: spool)
        #expect(step.request == request)
        #expect(step.response == response)
        // Equality leaves timings out, so they are compared on their own.
        #expect(step.response?.timing == response.timing)
        let noResponse = StepResult(
            suiteID: "s", flow: "f", index: 1, name: "n", file: "x.yaml", mark: SourceMark(line: 2, column: 1),
            spec: SpecReference(), verdict: .error, request: request
        ).spooled(into: spool)
        #expect(noResponse.request == request)
        #expect(noResponse.response == nil)
        #expect(step.droppingExchangeIfPassed().hasExchange)
        var passed = step
        passed.verdict = .pass
        #expect(!passed.droppingExchangeIfPassed().hasExchange)
    }
}
