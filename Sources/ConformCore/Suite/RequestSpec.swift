import ConformDiagnostics

/// A request description: rendered as a client, matched as a server, with the same templates and matchers.
public struct RequestSpec: Sendable, Hashable {
    public var method: TemplateValue
    public var url: TemplateValue
    /// Query parameters appended to the URL in this order.
    public var query: [(name: String, value: MatchSpec)]
    public var headers: [(name: String, value: MatchSpec)]
    public var body: BodySpec?
    public var mark: SourceMark

    public init(
        method: TemplateValue, url: TemplateValue, query: [(name: String, value: MatchSpec)] = [],
        headers: [(name: String, value: MatchSpec)] = [], body: BodySpec? = nil,
        mark: SourceMark = SourceMark(line: 0, column: 0)
    ) {
        self.method = method
        self.url = url
        self.query = query
        self.headers = headers
        self.body = body
        self.mark = mark
    }

    public static func == (lhs: RequestSpec, rhs: RequestSpec) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body && lhs.mark == rhs.mark
            && sameEntries(lhs.query, rhs.query) && sameEntries(lhs.headers, rhs.headers)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(query.map(\.name))
        hasher.combine(headers.map(\.name))
    }
}

/// A body: JSON (templated, or matchers when matching) or raw text.
public enum BodySpec: Sendable, Hashable {
    case json(MatchSpec)
    case text(TemplateValue)
}

/// What a response must look like. Every part is optional; JSON bodies match partially unless `strictJSON`.
///
/// It holds no place in its file, so the steps of a suite that expect the same (every step's `status: 200` and
/// content type) share one copy of their checks.
public struct ResponseSpec: Sendable, Hashable {
    public var status: MatchSpec?
    public var headers: [(name: String, value: MatchSpec)]
    public var body: BodySpec?
    public var strictJSON: Bool

    public init(
        status: MatchSpec? = nil, headers: [(name: String, value: MatchSpec)] = [], body: BodySpec? = nil,
        strictJSON: Bool = false
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.strictJSON = strictJSON
    }

    public static func == (lhs: ResponseSpec, rhs: ResponseSpec) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body && lhs.strictJSON == rhs.strictJSON
            && sameEntries(lhs.headers, rhs.headers)
    }

    /// The body counts: steps that check the same status and headers for different bodies hash apart.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(headers.map(\.name))
        hasher.combine(body)
        hasher.combine(strictJSON)
    }
}

/// Whether two lists of named matchers (a query, headers) hold the same entries in the same order: a list of tuples
/// is not `Equatable`.
private func sameEntries(_ lhs: [(name: String, value: MatchSpec)], _ rhs: [(name: String, value: MatchSpec)]) -> Bool {
    lhs.elementsEqual(rhs) { $0.name == $1.name && $0.value == $1.value }
}
