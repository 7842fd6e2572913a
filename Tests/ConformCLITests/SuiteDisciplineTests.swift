import ConformCore
import Foundation
import Testing

/// Rules every bundled suite keeps so it passes every conforming implementation, not just the reference
/// (decisions D16–D19): checked on the loaded suites, so a new step that breaks one fails here with its location.
@Suite struct SuiteDisciplineTests {
    struct Located {
        var suite: Suite
        var step: Step
        var exchange: Exchange
        var location: String { "\(suite.file):\(step.mark.line) '\(step.name)'" }
    }

    static func exchanges() throws -> [Located] {
        let all = try SuitesBundle.load().flatMap { suite in
            suite.flows.flatMap(\.steps).compactMap { step -> Located? in
                guard case .exchange(let e) = step.action else { return nil }
                return Located(suite: suite, step: step, exchange: e)
            }
        }
        #expect(!all.isEmpty, "the bundled suites hold no exchange step")
        return all
    }

    /// A rule judged only on the steps a filter picks passes with no step at all: each rule counts what it judged
    /// and fails when the filter stopped finding anything, so a renamed path or matcher cannot silence it.
    static func expectJudged(_ count: Int, _ what: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(count > 0, "no bundled step is \(what): the rule judged nothing", sourceLocation: sourceLocation)
    }

    static func uses(_ m: MatchSpec, _ test: (MatchSpec) -> Bool) -> Bool {
        if test(m) { return true }
        switch m {
        case .object(let fields, _): return fields.contains { uses($0.value, test) }
        case .array(let e), .oneOf(let e), .contains(let e), .anyOrder(let e), .allOf(let e):
            return e.contains { uses($0, test) }
        case .length(let inner), .not(let inner): return uses(inner, test)
        default: return false
        }
    }

    static func jsonMatchers(_ e: Exchange) -> [MatchSpec] {
        e.checks.compactMap { group in
            if case .json(let m)? = group.expectation.body { return m }
            return nil
        }
    }

    static func source(_ v: TemplateValue) -> String {
        if case .string(let t) = v { return t.source }
        return ""
    }

    static func isMessageSync(_ e: Exchange) -> Bool { source(e.request.url).hasSuffix("/mobile/5/messages") }

    @Test func everyAssumptionAlsoRefusesAServerError() throws {
        var judged = 0
        for x in try Self.exchanges() where x.exchange.checks.contains(where: { $0.severity == .assumed }) {
            judged += 1
            let musts = x.exchange.checks.filter { $0.severity == .must }.compactMap(\.expectation.status)
            let scope = TemplateScope(values: [:])
            #expect(
                musts.contains { !$0.matches(.int(500), in: scope) && !$0.matches(.int(503), in: scope) },
                "\(x.location): a step with 'assume' must also 'expect' a status below 500")
        }
        Self.expectJudged(judged, "a step with 'assume'")
    }

    @Test func absenceOnMessageSyncIsJudgedOnlyAfterAControl() throws {
        var judged = 0
        for x in try Self.exchanges() where Self.isMessageSync(x.exchange) {
            let negative = Self.jsonMatchers(x.exchange).contains {
                Self.uses($0) {
                    if case .not = $0 { return true }
                    return false
                }
            }
            if negative {
                judged += 1
                #expect(x.exchange.until != nil, "\(x.location): 'did not receive' needs an 'until' control")
            }
        }
        Self.expectJudged(judged, "a message sync that expects a message not to arrive")
    }

    @Test func deliveryIsObservedEventually() throws {
        var judged = 0
        for x in try Self.exchanges() where Self.isMessageSync(x.exchange) {
            let positive = Self.jsonMatchers(x.exchange).contains {
                Self.uses($0) {
                    if case .contains = $0 { return true }
                    return false
                }
            }
            if positive || x.exchange.until != nil {
                judged += 1
                #expect(
                    x.exchange.eventually?.window?.source == "{{ asyncWindow }}",
                    "\(x.location): message sync is eventual (D18); add eventually: {timeout: \"{{ asyncWindow }}\"}")
            }
        }
        Self.expectJudged(judged, "a message sync that waits for a delivery")
    }

    @Test func peopleReadsAfterWritesAreEventual() throws {
        var judged = 0
        for x in try Self.exchanges() {
            let url = Self.source(x.exchange.request.url)
            let isBackendRead =
                Self.source(x.exchange.request.method) == "GET"
                && (url.contains("/people/2/persons") || url.contains("/people/2/contactInformation/push/"))
            // A read that expects a person or registration to be found reflects earlier writes.
            let scope = TemplateScope(values: [:])
            let expectsFound = x.exchange.checks.contains { group in
                group.severity == .must
                    && group.expectation.status.map {
                        $0.matches(.int(200), in: scope) && !$0.matches(.int(404), in: scope)
                    }
                        == true
            }
            if isBackendRead && expectsFound {
                judged += 1
                #expect(
                    x.exchange.eventually?.window?.source == "{{ asyncWindow }}",
                    "\(x.location): People API reads are eventually consistent (D18)")
            }
        }
        Self.expectJudged(judged, "a People API read that expects to find what was written")
    }

    @Test func noValueIsNeverSpelledAbsent() throws {
        for x in try Self.exchanges() {
            for m in Self.jsonMatchers(x.exchange)
                + (x.exchange.until.flatMap {
                    if case .json(let m)? = $0.body { return [m] }
                    return nil
                } ?? [])
            {
                let absent = Self.uses(m) {
                    if case .absent = $0 { return true }
                    return false
                }
                #expect(!absent, "\(x.location): use $none (absent, null or empty are the same, D19)")
            }
        }
    }

    /// JSON member names are sent as written, never rendered: `{"{{ start }}": …}` would reach the server literally.
    @Test func noJSONMemberNameIsATemplate() throws {
        func templatedKeys(_ m: MatchSpec) -> [String] {
            switch m {
            case .object(let fields, _):
                return fields.filter { $0.key.contains("{{") }.map(\.key) + fields.flatMap { templatedKeys($0.value) }
            case .array(let e), .oneOf(let e), .contains(let e), .anyOrder(let e), .allOf(let e):
                return e.flatMap(templatedKeys)
            case .length(let inner), .not(let inner): return templatedKeys(inner)
            default: return []
            }
        }
        for x in try Self.exchanges() {
            var bodies = Self.jsonMatchers(x.exchange)
            if case .json(let m)? = x.exchange.request.body { bodies.append(m) }
            for m in bodies {
                let keys = templatedKeys(m)
                #expect(keys.isEmpty, "\(x.location): member names are not templates: \(keys)")
            }
        }
    }

    @Test func everyWindowDefaultsToTenSecondsAndCanBeOverridden() throws {
        var judged = 0
        for suite in try SuitesBundle.load() {
            let windows = suite.flows.flatMap(\.steps).compactMap { step -> Eventually? in
                if case .exchange(let e) = step.action { return e.eventually }
                return nil
            }
            guard !windows.isEmpty else { continue }
            judged += 1
            #expect(windows.allSatisfy { $0.window?.source == "{{ asyncWindow }}" }, "\(suite.file)")
            let declared = suite.variables.first { $0.name == "asyncWindow" }
            #expect(declared?.defaultValue == .string(Template(literal: "10s")), "\(suite.file): asyncWindow: 10s")
        }
        Self.expectJudged(judged, "a suite with an 'eventually' window")
    }
}
