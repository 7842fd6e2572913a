import ConformCore
import ConformReference
import Foundation

/// Which steps of the bundled suites reach each endpoint the reference serves (its route table).
struct EndpointCoverage: Sendable {
    /// One exchange step of a bundled suite, as a report numbers it (`flow › N.`).
    struct StepRef: Sendable, Hashable {
        var suite: String
        var file: String
        var flow: String
        /// 1-based position in its flow, waits included, as in reports.
        var number: Int
        var line: Int
        /// Whether its `expect` requires a success (a 2xx and nothing else).
        var expectsSuccess: Bool
        /// Whether its `expect` checks the JSON body.
        var checksJSON: Bool

        var location: String { "\(file):\(line) (\(suite) › \(flow) › \(number).)" }
    }

    /// Every endpoint of the route table, in its order, with the steps that reach it (possibly none).
    var rows: [(endpoint: ReferenceEndpoint, steps: [StepRef])]
    /// Steps whose request reaches no endpoint of the reference.
    var unrouted: [StepRef]

    static func compute(_ suites: [Suite]) -> EndpointCoverage {
        var byEndpoint: [ReferenceEndpoint: [StepRef]] = [:]
        var unrouted: [StepRef] = []
        for suite in suites {
            for flow in suite.flows {
                for (index, step) in flow.steps.enumerated() {
                    guard case .exchange(let exchange) = step.action else { continue }
                    let ref = StepRef(
                        suite: suite.id, file: suite.file, flow: flow.name, number: index + 1, line: step.mark.line,
                        expectsSuccess: expectsSuccess(exchange), checksJSON: checksJSON(exchange))
                    if let endpoint = endpoint(of: exchange.request) {
                        byEndpoint[endpoint, default: []].append(ref)
                    } else {
                        unrouted.append(ref)
                    }
                }
            }
        }
        return EndpointCoverage(
            rows: ReferenceEndpoint.all.map { ($0, byEndpoint[$0] ?? []) }, unrouted: unrouted)
    }

    /// The endpoint a request description reaches: templates stand for one segment, the base URL is dropped,
    /// and `X-HTTP-Method-Override` names the method as the reference reads it (D14).
    static func endpoint(of request: RequestSpec) -> ReferenceEndpoint? {
        guard case .string(let url) = request.url else { return nil }
        var path = url.source.replacingOccurrences(
            of: "\\{\\{[^}]*\\}\\}", with: "x", options: .regularExpression)
        if let scheme = path.range(of: "://") {
            path = String(path[scheme.upperBound...].drop { $0 != "/" })
        } else {
            path = String(path.drop { $0 != "/" })
        }
        path = String(path.prefix { $0 != "?" })
        var method = HTTPMethod(methodSource(request.method))
        let scope = TemplateScope(values: [:])
        if let override = request.headers.first(where: { $0.name.lowercased() == "x-http-method-override" }),
            override.value.matches(.string("PATCH"), in: scope)
        {
            method = .patch
        }
        return ReferenceEndpoint.matching(method: method, path: path)
    }

    private static func methodSource(_ value: TemplateValue) -> String {
        if case .string(let t) = value { return t.source }
        return ""
    }

    private static func expectsSuccess(_ exchange: Exchange) -> Bool {
        let scope = TemplateScope(values: [:])
        return exchange.checks.contains { group in
            group.severity == .must
                && group.expectation.status.map { status in
                    status.matches(.int(200), in: scope) && !status.matches(.int(400), in: scope)
                        && !status.matches(.int(500), in: scope)
                } == true
        }
    }

    private static func checksJSON(_ exchange: Exchange) -> Bool {
        exchange.checks.contains { group in
            guard group.severity == .must, case .json? = group.expectation.body else { return false }
            return true
        }
    }

    /// The steps of one row, suite by suite: `` `login` (main 2, 4) ``.
    static func cell(_ steps: [StepRef]) -> String {
        guard !steps.isEmpty else { return "—" }
        var order: [String] = []
        var bySuite: [String: [StepRef]] = [:]
        for step in steps {
            if bySuite[step.suite] == nil { order.append(step.suite) }
            bySuite[step.suite, default: []].append(step)
        }
        return order.map { suite in
            let steps = bySuite[suite] ?? []
            var flows: [String] = []
            var numbers: [String: [Int]] = [:]
            for step in steps {
                if numbers[step.flow] == nil { flows.append(step.flow) }
                numbers[step.flow, default: []].append(step.number)
            }
            let parts = flows.map { flow in
                "\(flow) " + (numbers[flow] ?? []).map(String.init).joined(separator: ", ")
            }
            return "`\(suite)` (\(parts.joined(separator: "; ")))"
        }.joined(separator: ", ")
    }

    /// The Markdown table written into `suites/README.md`.
    func markdown() -> String {
        var out = "| endpoint | request | suite steps (`suite` (flow step numbers)) |\n|---|---|---|\n"
        for row in rows {
            out += "| \(row.endpoint.id) | `\(row.endpoint.method) \(row.endpoint.path)` | \(Self.cell(row.steps)) |\n"
        }
        let covered = rows.filter { !$0.steps.isEmpty }.count
        out += "\n\(covered) of \(rows.count) endpoints have suite steps.\n"
        return out
    }

    /// The table's cells by endpoint id, parsed from the `endpoint-coverage` section of a page.
    static func parse(_ page: String) -> [String: String] {
        guard let begin = page.range(of: "<!-- endpoint-coverage:begin -->"),
            let end = page.range(of: "<!-- endpoint-coverage:end -->", range: begin.upperBound..<page.endIndex)
        else { return [:] }
        var cells: [String: String] = [:]
        for line in page[begin.upperBound..<end.lowerBound].split(separator: "\n")
        where line.hasPrefix("| ") && !line.hasPrefix("| endpoint") {
            let columns = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard columns.count >= 5 else { continue }
            cells[columns[1]] = columns[3]
        }
        return cells
    }
}
