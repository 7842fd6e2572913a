import ConformCore
import ConformDiagnostics
import ConformTraffic

/// A client-side rule of the flow, as the profile declares and words it (``ProtocolProfile/flowRules``).
public typealias FlowRule = ProtocolProfile.FlowRule

/// A step of the flow, named as the suites name theirs.
public typealias FlowStep = ProtocolProfile.FlowStep

/// One broken rule: which exchange (or app event), which flow step, what happened and how to fix it.
public struct FlowViolation: Sendable, Hashable, CustomStringConvertible {
    public var rule: FlowRule
    /// The `seq` of the exchange (or event) the violation happened in.
    public var seq: Int
    /// The flow the exchange belongs to (device pushRegId or `backend`).
    public var flow: String
    /// The endpoint id (e.g. `M4`), or `event:<kind>` when an app event proved the violation.
    public var endpoint: String
    /// The step of the flow the violation breaks (the rule's step).
    public var step: FlowStep
    public var message: String
    public var help: String
    /// The exchange that broke the rule, when the violation was found on it (reports show it).
    public var exchange: RecordedExchange? = nil

    /// The violation as a `flow.violation` diagnostic naming the exchange or event, coded with the rule's id.
    public var diagnostic: Diagnostic { diagnostic(file: nil) }

    /// The diagnostic with the recording it was found in.
    public func diagnostic(file: String?) -> Diagnostic {
        let what =
            endpoint.hasPrefix("event:") ? "event \(seq) (\(endpoint.dropFirst(6))" : "exchange \(seq) (\(endpoint)"
        return Diagnostic(
            .flowViolation, file: file, context: "\(what), step \(step), flow \(flow))", code: rule.id,
            message: message, help: help)
    }

    public var description: String { diagnostic.rendered(sourceLine: nil) }
}
