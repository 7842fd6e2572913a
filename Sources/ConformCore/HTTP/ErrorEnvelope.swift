/// How a protocol's servers say no: the JSON body of a refusal with a stable code and a text saying what to fix,
/// and how such a body is read back.
///
/// A ``ProtocolProfile`` declares its protocol's (`ConformMobileMessaging`'s is
/// `{"requestError":{"serviceException":{"messageId","text"}}}`); every server Conform plays (the reference, a mock,
/// a recording proxy, the HTTP server's own refusals) answers with its profile's, and ``neutral`` is the one of a
/// handler that names no protocol.
public struct ErrorEnvelope: Sendable {
    /// The body that carries `code` and `text`.
    public var body: @Sendable (_ code: String, _ text: String) -> JSONValue
    /// The code and text of a body in this envelope; `nil` when the body is not one.
    public var read: @Sendable (_ body: JSONValue) -> (code: String, text: String)?

    public init(
        body: @escaping @Sendable (_ code: String, _ text: String) -> JSONValue,
        read: @escaping @Sendable (_ body: JSONValue) -> (code: String, text: String)?
    ) {
        self.body = body
        self.read = read
    }

    /// An envelope that nests the code and the text under `path` (outermost key first), e.g.
    /// `["requestError", "serviceException"]` with `messageId` and `text`.
    public static func nested(_ path: [String], code: String, text: String) -> ErrorEnvelope {
        ErrorEnvelope(
            body: { codeValue, textValue in
                var value: JSONValue = .object(JSONObject([(code, .string(codeValue)), (text, .string(textValue))]))
                for key in path.reversed() { value = .object(JSONObject([(key, value)])) }
                return value
            },
            read: { body in
                var value: JSONValue? = body
                for key in path { value = value?[key] }
                guard let codeValue = value?[code]?.stringValue, let textValue = value?[text]?.stringValue else {
                    return nil
                }
                return (codeValue, textValue)
            })
    }

    /// `{"error":{"code","message"}}`: the envelope of a server that speaks no protocol in particular.
    public static let neutral = ErrorEnvelope.nested(["error"], code: "code", text: "message")

    /// A JSON response with `status` whose body is this envelope around `code` and `text`.
    public func response(_ status: HTTPStatus, code: String, text: String) -> HTTPResponse {
        .json(status, body(code, text))
    }
}
