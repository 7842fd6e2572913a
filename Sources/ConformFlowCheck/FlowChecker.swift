import ConformCore
import ConformTraffic
import Foundation

/// Checks a client's traffic against the flow's rules, one exchange (or app event) at a time, keeping only
/// per-device and per-person state.
public struct FlowChecker: Sendable {
    public let configuration: FlowCheckConfiguration
    /// The rules judged, by the kind each is (``FlowCheckConfiguration/judgedRules``, the first of a kind): a
    /// judgment of a kind not here is not made.
    let rules: [FlowRule.Kind: FlowRule]

    /// pushRegId → when the response that issued it completed (`distantPast` for ids registered before the trace).
    var issued: [String: Date]
    /// The earliest completed registration, for calls that name no pushRegId.
    var firstIssued: Date?
    var devices: [String: Device] = [:]
    var applicationCodes: Set<String>
    /// Phones and emails (`phone:…`, `email:…`) → the externalUserId of the person the trace showed owning them.
    var owners: [String: String] = [:]
    /// Persons whose installations a listing (M7 `instances`, B5 `contactInformation.push`) showed.
    var persons: [String: Person] = [:]
    /// An `appUpdated` that waits for the next registration.
    var pendingUpdate: AppEvent?
    /// What the recovery rules keep, by pushRegId (``Recovery``).
    var recovery: [String: Recovery] = [:]
    /// Each push token the trace registered, with the pushRegId it got and the exchange.
    var registrationsByToken: [String: (id: String, seq: Int)] = [:]
    /// The last `appUpdated` with no registration after it yet.
    var lastUpdate: AppEvent?
    /// Events seen so far (numbers events of an events file that carry no `seq`).
    var eventCount = 0
    /// Things the checker could not judge (an event naming no device in a trace of several).
    public internal(set) var notes: [String] = []
    /// The ids of the rules the records so far gave something to judge, broken or kept; a rule not among them (nor
    /// broken) was not exercised, which is never a pass.
    public internal(set) var exercised: Set<String> = []
    /// Where each exercised rule was judged: the first record (its `seq`) and how many records gave it something
    /// to judge, for `check --verbose` and the reports.
    public internal(set) var judged: [String: RuleJudgement] = [:]
    /// The `seq` of the record being checked.
    var currentSeq = 0

    /// Where a rule was judged in a trace.
    public struct RuleJudgement: Sendable, Hashable {
        /// The `seq` of the first record that gave the rule something to judge.
        public var first: Int
        /// The `seq` of the last one.
        public var last: Int
        /// How many records did.
        public var count: Int

        public init(first: Int, last: Int? = nil, count: Int) {
            self.first = first
            self.last = last ?? first
            self.count = count
        }
    }
    /// Whether the records so far held a registration, a user call or a backend call: traffic of the flow. A trace
    /// without any (a base-URL call and an event) cannot be judged, whatever its rules say.
    public internal(set) var showedFlow = false

    /// Most phones, emails and persons remembered; beyond that nothing new is learned (rules stay silent).
    static let memoryLimit = 200_000

    public init(configuration: FlowCheckConfiguration) {
        self.configuration = configuration
        self.rules = Dictionary(configuration.judgedRules.map { ($0.kind, $0) }) { first, _ in first }
        self.issued = Dictionary(uniqueKeysWithValues: configuration.registeredBefore.map { ($0, Date.distantPast) })
        self.firstIssued = configuration.registeredBefore.isEmpty ? nil : .distantPast
        self.applicationCodes = configuration.applicationCodes
    }

    /// What a check of a whole trace found.
    public struct Outcome: Sendable, Hashable {
        /// The violations, in trace order.
        public var violations: [FlowViolation]
        /// What the trace could not show either way (notes, obligations still open at its end).
        public var notes: [String]
        /// The ids of the rules the trace exercised (broken ones included).
        public var exercised: Set<String>
        /// Whether the trace held traffic of the flow (``FlowChecker/showedFlow``).
        public var showedFlow: Bool
        /// Where each exercised rule was judged (``FlowChecker/judged``).
        public var judged: [String: RuleJudgement] = [:]
    }

    /// The outcome of the trace as it ended: `violations` followed by the obligations the trace ended without
    /// keeping (``endOfTraceViolations()``), the checker's notes and what is still pending, the rules exercised.
    public func outcome(_ violations: [FlowViolation]) -> Outcome {
        let ended = endOfTraceViolations()
        let all = violations + ended
        return Outcome(
            violations: all, notes: notes + openObligations(), exercised: exercised.union(all.map(\.rule.id)),
            showedFlow: showedFlow, judged: judged)
    }

    /// Marks the rule of kind `kind` as exercised: the record at hand gave it something to judge.
    mutating func exercise(_ kind: FlowRule.Kind) {
        guard let rule = rules[kind] else { return }
        exercised.insert(rule.id)
        if var seen = judged[rule.id] {
            // One record may exercise a rule more than once; it is counted once.
            if seen.last != currentSeq {
                seen.last = currentSeq
                seen.count &+= 1
                judged[rule.id] = seen
            }
        } else {
            judged[rule.id] = RuleJudgement(first: currentSeq, count: 1)
        }
    }

    /// Checks every exchange of a sequence (e.g. a HAR import) and returns the violations in order.
    public static func check(
        _ exchanges: some Sequence<RecordedExchange>, configuration: FlowCheckConfiguration
    ) -> [FlowViolation] {
        var checker = FlowChecker(configuration: configuration)
        return exchanges.flatMap { checker.check($0) }
    }

    /// Checks exchanges and events in trace order, with events of an events file placed by time.
    public static func check(
        _ records: some Sequence<TraceRecord>, events: [AppEvent] = [], configuration: FlowCheckConfiguration
    ) -> Outcome {
        var checker = FlowChecker(configuration: configuration)
        var merger = AppEventMerger(events)
        var found: [FlowViolation] = []
        for record in records {
            if case .exchange(let exchange) = record {
                for event in merger.due(before: exchange) { found += checker.check(event) }
            }
            found += Self.attaching(record, to: checker.check(record))
        }
        for event in merger.rest() { found += checker.check(event) }
        return checker.outcome(found)
    }

    /// Streams a trace (a ``Trace``'s ``TraceRecords``: exchanges and recorded app
    /// events) through the checker without loading it; events of an events file are placed by time.
    public static func check<Records: AsyncSequence<TraceRecord, any Error>>(
        recording: Records, events: [AppEvent] = [], configuration: FlowCheckConfiguration,
        onViolation: (FlowViolation) -> Void = { _ in }
    ) async throws -> Outcome {
        var checker = FlowChecker(configuration: configuration)
        var merger = AppEventMerger(events)
        var all: [FlowViolation] = []
        func take(_ found: [FlowViolation]) {
            for violation in found {
                onViolation(violation)
                all.append(violation)
            }
        }
        for try await record in recording {
            if case .exchange(let exchange) = record {
                for event in merger.due(before: exchange) { take(checker.check(event)) }
            }
            take(Self.attaching(record, to: checker.check(record)))
        }
        for event in merger.rest() { take(checker.check(event)) }
        return checker.outcome(all)
    }

    /// `found` with the exchange `record` holds attached to each violation found on it, so reports can show it.
    public static func attaching(_ record: TraceRecord, to found: [FlowViolation]) -> [FlowViolation] {
        guard case .exchange(let exchange) = record, !found.isEmpty else { return found }
        return found.map { v in
            var v = v
            if v.seq == exchange.seq { v.exchange = exchange }
            return v
        }
    }

    /// Streams a trace (any format) through the checker, its records in start order.
    public static func check(
        _ trace: Trace, configuration: FlowCheckConfiguration,
        onViolation: (FlowViolation) -> Void = { _ in }
    ) async throws -> [FlowViolation] {
        try await check(recording: trace.records(order: .start), configuration: configuration) {
            onViolation($0)
        }.violations
    }

    /// Checks one exchange or app event.
    public mutating func check(_ record: TraceRecord) -> [FlowViolation] {
        switch record {
        case .exchange(let exchange): check(exchange)
        case .event(let event): check(event)
        }
    }

    /// Checks one exchange against the state built from the earlier records, then updates that state.
    public mutating func check(_ exchange: RecordedExchange) -> [FlowViolation] {
        currentSeq = exchange.seq
        if exchange.isRefusedUndecodableRequest {
            if notes.count < 100 { notes.append(exchange.refusedUndecodableNote) }
            return []
        }
        guard let endpoint = configuration.endpoints.classify(exchange.request) else { return [] }
        if endpoint.isRegistration || endpoint.isUserCall || endpoint.isBackend { showedFlow = true }
        var findings = Findings(exchange: exchange, endpoint: endpoint, rules: rules)
        let call = Call(exchange, endpoint, header: configuration.flows.requestHeader)
        if endpoint.isMobile {
            checkMobile(call, &findings)
        } else if endpoint.isBackend {
            checkBackend(call, &findings)
        }
        checkRecovery(call, &findings)
        let obligation = checkObligations(call, &findings)
        if !obligation { checkUserSwitch(call, &findings) }
        checkPrimaryPush(call, &findings)
        update(call)
        return findings.found
    }

    private mutating func checkMobile(_ call: Call, _ findings: inout Findings) {
        let endpoint = call.endpoint
        let auth = call.auth
        // Only a code the server accepted is an application code; a refused one may be a misplaced API key.
        if case .app(let code) = auth, call.succeeded { applicationCodes.insert(code) }
        if let own = call.own, case .app(let code) = auth { devices[own, default: Device()].applicationCode = code }

        if endpoint.isUserCall {
            exercise(.registrationFirst)
            checkRegistrationFirst(call, &findings)
        }
        // Judged where the protocol names an installation in a header: a call that must name its own.
        if let header = configuration.flows.requestHeader, endpoint.namesRegistration,
            endpoint.pathRegistrationId.map({ issued[$0] != nil }) ?? (firstIssued != nil)
        {
            exercise(.registrationHeader)
            if call.header == nil {
                findings.report(.registrationHeader, "\(endpoint.id) after registration without the \(header) header")
            }
        }
        let applicationCode = call.own.flatMap { devices[$0]?.applicationCode } ?? auth.applicationCode
        if let code = applicationCode {
            let accessRestricted = configuration.accessRestrictedApplicationCodes.contains(code)
            if accessRestricted || configuration.restrictedApplicationCodes.contains(code) {
                exercise(.restrictedPersonalData)
            }
            if endpoint.sendsPersonalData, accessRestricted || configuration.restrictedApplicationCodes.contains(code) {
                findings.report(
                    .restrictedPersonalData,
                    "\(endpoint.id) sent by the app of restricted application '\(configuration.shown(code))'")
            } else if endpoint.readsUser, accessRestricted {
                findings.report(
                    .restrictedPersonalData,
                    "\(endpoint.id) reads the user from the app of application '\(configuration.shown(code))', which restricts access to personal data"
                )
            }
        }
        if endpoint.isPersonalize {
            exercise(.personalizeIdentity)
            checkIdentity(call.exchange.request.body, key: "userIdentity") {
                findings.report(.personalizeIdentity, $0)
            }
        }
        checkAuthorizationScheme(call, applicationCode: applicationCode, &findings)
    }

    private func checkRegistrationFirst(_ call: Call, _ findings: inout Findings) {
        let id = call.endpoint.id
        if let own = call.own {
            guard let done = issued[own] else {
                findings.report(
                    .registrationFirst, "\(id) for pushRegId '\(own)' before any registration issued it")
                return
            }
            if let early = Self.millisecondsEarly(call.exchange, before: done) {
                findings.report(
                    .registrationFirst,
                    "\(id) for pushRegId '\(own)' started \(early) ms before the response of the registration that issued it completed"
                )
            }
        } else if let first = firstIssued {
            if let early = Self.millisecondsEarly(call.exchange, before: first) {
                findings.report(
                    .registrationFirst, "\(id) started \(early) ms before the first registration's response completed")
            }
        } else {
            findings.report(.registrationFirst, "\(id) sent before any registration")
        }
    }

    /// How many whole milliseconds an exchange started before `time`, when both are real clock readings and the
    /// gap is larger than the millisecond the timestamps are truncated to; `nil` otherwise.
    static func millisecondsEarly(_ exchange: RecordedExchange, before time: Date) -> Int? {
        let start = exchange.startedAt.timeIntervalSince1970
        let end = time.timeIntervalSince1970
        guard start > 86_400, end > 86_400 else { return nil }
        // To the microsecond: two readings of the clock this far from its epoch differ by a few ten-thousandths of a
        // millisecond more or less than they mean, which must not turn exactly one millisecond into a violation.
        let gap = ((end - start) * 1_000_000).rounded() / 1000
        guard gap > 1, gap < 1e12 else { return nil }
        return Int(gap.rounded(.down))
    }

    private mutating func checkBackend(_ call: Call, _ findings: inout Findings) {
        let id = call.endpoint.id
        exercise(.backendCredentials)
        switch call.auth {
        case .missing:
            findings.report(.backendCredentials, "\(id) without an Authorization header")
        case .app(let key) where applicationCodes.contains(key):
            findings.report(
                .backendCredentials, "\(id) authorized with the application code '\(key)' instead of an API key")
        default:
            break
        }
        if call.endpoint.traits.contains(.pushRegistration),
            (call.exchange.request.headerFields["AppCode"] ?? "").trimmingCharacters(in: .whitespaces).isEmpty
        {
            findings.report(.backendCredentials, "\(id) (People push registration) without the AppCode header")
        }
        if call.endpoint.isPersonalize {
            exercise(.personalizeIdentity)
            checkIdentity(call.exchange.request.body, key: "identity") { findings.report(.personalizeIdentity, $0) }
        }
    }

    private func checkIdentity(_ body: Data, key: String, report: (String) -> Void) {
        guard body.count <= JSONValue.maxParsedBodyBytes else {
            report(
                "personalize with a body of \(body.count) bytes, more than the \(JSONValue.maxParsedBodyBytes) checked")
            return
        }
        guard let json = JSONValue.parsedBody(body) else {
            report("personalize without a JSON body")
            return
        }
        guard let identity = json[key], case .object(let object) = identity else {
            report("personalize without `\(key)`")
            return
        }
        let nonEmpty = object.contains { _, value in
            switch value {
            case .string(let s): !s.isEmpty && s.lowercased() != "null"
            case .array(let items): !items.isEmpty
            default: false
            }
        }
        if !nonEmpty { report("personalize with an empty `\(key)`") }
    }
}

/// The violations found in one exchange, of the rules judged (``FlowChecker/rules``).
struct Findings {
    let exchange: RecordedExchange
    let endpoint: FlowEndpoint
    let rules: [FlowRule.Kind: FlowRule]
    var found: [FlowViolation] = []

    /// Reports a violation of the rule of kind `kind`, when one is judged.
    mutating func report(_ kind: FlowRule.Kind, _ message: String) {
        guard let rule = rules[kind] else { return }
        found.append(
            FlowViolation(
                rule: rule, seq: exchange.seq, flow: exchange.flow, endpoint: endpoint.id, step: rule.step,
                message: message, help: rule.help))
    }
}
