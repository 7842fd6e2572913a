/// What a protocol tells the recorder, HAR import, capture and replay about the devices in its traffic: which device
/// (the flow) an exchange belongs to, so a replay keeps each device's calls in order and may play devices at once,
/// and which upstream a path is sent to.
extension ProtocolProfile {
    /// How an exchange names its flow: a request header, the id a call's answer creates, an `{id}` segment of its
    /// path; calls under a shared prefix belong to no device unless their path names one.
    public struct FlowKeys: Sendable, Hashable {
        /// Paths whose `{id}` segment names the flow, `*` matching any one segment and more segments allowed after
        /// the template's (`/mobile/*/appinstance/{id}`).
        public var pathTemplates: [String]
        /// A request header that holds the flow's id (`pushregistrationid`), compared case-insensitively.
        public var requestHeader: String?
        /// A member of a JSON answer's top level that holds the id the call created (a registration's `pushRegId`).
        public var answerMember: String?
        /// Path prefixes of calls that act for no one device (the backend's `/people/`, `/push/`): their flow is
        /// named by their path alone, else it is ``sharedFlow``.
        public var sharedPathPrefixes: [String]
        /// The flow of calls that name no device (`backend`): a replay plays them alone, in recorded order.
        public var sharedFlow: String

        public init(
            pathTemplates: [String] = [], requestHeader: String? = nil, answerMember: String? = nil,
            sharedPathPrefixes: [String] = [], sharedFlow: String = "shared"
        ) {
            self.pathTemplates = pathTemplates
            self.requestHeader = requestHeader
            self.answerMember = answerMember
            self.sharedPathPrefixes = sharedPathPrefixes
            self.sharedFlow = sharedFlow
        }

        /// The flow of an exchange that names none.
        public static let anonymousFlow = "anonymous"

        /// A protocol whose exchanges name no device: every exchange is in ``anonymousFlow``.
        public static let none = FlowKeys()

        /// The flow `request` (and its `response`, when there is one) belongs to.
        public func flow(request: HTTPRequest, response: HTTPResponse?) -> String {
            let path = request.path
            if sharedPathPrefixes.contains(where: { path.hasPrefix($0) }) { return id(inPath: path) ?? sharedFlow }
            if let name = requestHeader, let header = request.headerFields[name], !header.isEmpty { return header }
            if let member = answerMember, let response, let body = JSONValue.parsedBody(response.body),
                let id = body[member]?.stringValue, !id.isEmpty
            {
                return id
            }
            return id(inPath: path) ?? Self.anonymousFlow
        }

        /// The percent-decoded `{id}` segment of the first of ``pathTemplates`` that `path` matches.
        public func id(inPath path: String) -> String? {
            let parts = path.split(separator: "/", omittingEmptySubsequences: true)
            for template in pathTemplates {
                let pattern = template.split(separator: "/", omittingEmptySubsequences: true)
                guard parts.count >= pattern.count else { continue }
                var found: Substring?
                var matches = true
                for (part, expected) in zip(parts, pattern) {
                    switch expected {
                    case "*": continue
                    case "{id}": found = part
                    default: matches = matches && part == expected
                    }
                }
                if matches, let found { return percentDecode(found) }
            }
            return nil
        }
    }

    /// The upstream an exchange sent to `path` is recorded as coming from: the base the path belongs to
    /// (``baseName(forPath:)``), or `*` (every path) for a profile with no bases.
    public func upstream(forPath path: String) -> String { baseName(forPath: path) ?? "*" }
}
