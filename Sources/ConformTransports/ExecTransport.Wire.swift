import ConformCore
import Foundation

extension ExecTransport {
    /// The line protocol between Conform and an adapter program: one JSON object per line each way.
    enum Wire {
        /// What the adapter answered for one exchange.
        enum Reply {
            case response(HTTPResponse)
            case adapterError(String)
        }

        /// Encodes a request as one line (without the newline).
        static func encode(_ request: HTTPRequest, id: Int) -> String {
            var object = JSONObject()
            object["id"] = .int(id)
            object["method"] = .string(request.method.rawValue)
            object["url"] = .string(request.url)
            object["headers"] = .array(request.headerFields.map { .array([.string($0.name), .string($0.value)]) })
            if let text = String(data: request.body, encoding: .utf8) {
                object["body"] = .string(text)
            } else {
                object["bodyBase64"] = .string(request.body.base64EncodedString())
            }
            return JSONValue.object(object).serialized(.compact)
        }

        /// Decodes one reply line, parsed once as it was read, or returns why it is not a valid reply for `id`.
        static func decode(_ line: AdapterProcess.Line, id: Int) -> Result<Reply, Problem> {
            let value: JSONValue
            switch line.value {
            case .success(let parsed): value = parsed
            case .failure(let error):
                // A reply over its memory budget is a response too large to hold, not a break of the protocol.
                return .failure(
                    Problem("the reply is not JSON (\(error)): \(line.excerpt)", brokeProtocol: !error.isLimit))
            }
            let excerpt = line.excerpt
            guard case .object = value else {
                return .failure(Problem("the reply is not a JSON object: \(excerpt)"))
            }
            guard let replyID = value["id"]?.numberValue, replyID == Double(id) else {
                return .failure(
                    Problem(
                        "the reply has id \(value["id"]?.serialized() ?? "missing"), expected \(id): \(excerpt)"))
            }
            if let message = value["error"] {
                return .success(.adapterError(message.stringValue ?? message.serialized()))
            }
            guard let status = value["status"]?.numberValue, let code = Int(exactly: status), (100...999).contains(code)
            else {
                return .failure(
                    Problem("the reply has no \"status\" between 100 and 999 and no \"error\": \(excerpt)"))
            }
            var fields = HTTPFields()
            for pair in value["headers"]?.arrayValue ?? [] {
                guard let items = pair.arrayValue, items.count == 2, let name = items[0].stringValue,
                    let text = items[1].stringValue
                else {
                    return .failure(
                        Problem("each header must be a [\"Name\", \"value\"] pair, got \(pair.serialized())"))
                }
                fields.append(name: name, value: text)
            }
            var body = Data()
            if let encoded = value["bodyBase64"]?.stringValue {
                guard let decoded = Data(base64Encoded: encoded) else {
                    return .failure(Problem("\"bodyBase64\" is not valid base64"))
                }
                body = decoded
            } else if let text = value["body"]?.stringValue {
                body = Data(text.utf8)
            }
            return .success(.response(HTTPResponse(status: HTTPStatus(code), headerFields: fields, body: body)))
        }

        /// Why a reply line is not a valid reply.
        struct Problem: Error {
            var message: String
            /// Whether the adapter broke the line protocol (the exchange could not run), rather than relaying a
            /// response too large to hold.
            var brokeProtocol: Bool
            init(_ message: String, brokeProtocol: Bool = true) {
                self.message = message
                self.brokeProtocol = brokeProtocol
            }
        }

        static func excerpt(_ line: String) -> String {
            line.count > 200 ? String(line.prefix(200)) + "…" : line
        }

        /// The first 200 characters of a line's bytes (decoded leniently), for messages.
        static func excerpt(_ bytes: [UInt8]) -> String {
            let start = String(decoding: bytes.prefix(1024), as: UTF8.self)
            return start.count > 200 || bytes.count > 1024 ? String(start.prefix(200)) + "…" : start
        }
    }
}
