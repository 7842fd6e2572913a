import ConformCore

extension RecordedExchange {
    /// Whether the server refused (4xx) a request whose body Conform could not decode (an unknown or corrupt
    /// `Content-Encoding`), and the trace lacks nothing else.
    ///
    /// Such a request changed nothing on the server, and its content cannot be read by the server or by the flow
    /// rules: it is not an exchange of the flow. The check names it in a note instead of calling the whole trace
    /// unjudgeable; a body the server accepted while Conform could not read it still makes the check CANNOT JUDGE.
    public var isRefusedUndecodableRequest: Bool {
        guard response.status.statusClass == 4, !omitted.isEmpty else { return false }
        return omitted.allSatisfy { $0.hasPrefix("request.body: ") && $0.contains(" encoding") }
    }

    /// The note a check gives a request the server refused because its body could not be decoded.
    public var refusedUndecodableNote: String {
        let cause = omitted.map { $0.dropFirst("request.body: ".count) }.joined(separator: "; ")
        return "exchange \(seq) (\(request.method) \(HTTPSyntax.quoted(request.target))): the server refused it with "
            + "\(response.status.code), and its body is \(cause); it changed nothing and no rule judges it"
    }
}
