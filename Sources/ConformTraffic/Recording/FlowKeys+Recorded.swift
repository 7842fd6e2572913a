import ConformCore
import Foundation

extension ProtocolProfile.FlowKeys {
    /// ``flow(request:response:)`` with the answer's member read over the body's bytes (``JSONLeafScan``) rather
    /// than from its tree, where the scan takes the body; the same flow either way. What the recorder derives for
    /// each exchange it writes.
    public func recordedFlow(request: HTTPRequest, response: HTTPResponse?) -> String {
        guard let member = answerMember, let response else { return flow(request: request, response: response) }
        let path = request.path
        if sharedPathPrefixes.contains(where: { path.hasPrefix($0) }) {
            return flow(request: request, response: response)
        }
        if let name = requestHeader, let header = request.headerFields[name], !header.isEmpty { return header }
        guard let found = JSONLeafScan.topLevelString(response.body, member: member) else {
            return flow(request: request, response: response)
        }
        if let id = found, !id.isEmpty { return id }
        return id(inPath: path) ?? Self.anonymousFlow
    }
}
