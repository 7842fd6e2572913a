import Foundation

extension RequestSpec {
    /// Renders the request a client sends: URL with query appended, headers, body.
    public func render(in scope: TemplateScope) throws(TemplateError) -> HTTPRequest {
        var url = try self.url.renderText(in: scope)
        if !query.isEmpty {
            var pairs: [String] = []
            for item in query {
                pairs.append("\(percentEncode(item.name))=\(percentEncode(try item.value.render(in: scope).text))")
            }
            url += (url.contains("?") ? "&" : "?") + pairs.joined(separator: "&")
        }
        let (fields, data) = try BodySpec.renderMessage(headers: headers, body: body, in: scope)
        return HTTPRequest(
            method: HTTPMethod(try method.renderText(in: scope)), url: url, headerFields: fields, body: data)
    }
}

extension BodySpec {
    /// Renders headers and body of a request or response; a JSON body brings `Content-Type: application/json`.
    static func renderMessage(
        headers: [(name: String, value: MatchSpec)], body: BodySpec?, in scope: TemplateScope
    ) throws(TemplateError) -> (HTTPFields, Data) {
        var fields = HTTPFields()
        for header in headers { fields.append(name: header.name, value: try header.value.render(in: scope).text) }
        var data = Data()
        switch body {
        case .json(let spec)?:
            data = Data(try spec.render(in: scope).serialized().utf8)
            if fields["Content-Type"] == nil { fields.append(name: "Content-Type", value: "application/json") }
        case .text(let template)?:
            data = Data(try template.renderText(in: scope).utf8)
        case nil: break
        }
        return (fields, data)
    }
}

extension ResponseSpec {
    /// Every mismatch between this expectation and `response`.
    public func mismatches(_ response: HTTPResponse, in scope: TemplateScope) -> [Mismatch] {
        var out: [Mismatch] = []
        if let status {
            out += status.mismatches(.int(response.status.code), at: "status", in: scope)
        }
        for header in headers {
            let values = response.headerFields.values(for: header.name)
            let actual: JSONValue? = values.isEmpty ? nil : .string(values.joined(separator: ", "))
            out += header.value.mismatches(actual, at: "header \(header.name)", in: scope)
        }
        switch body {
        case .json(let spec)?:
            switch response.jsonBody {
            case .success(let json): out += spec.mismatches(json, at: "$", in: scope, strictObjects: strictJSON)
            case .failure(let error): out.append(.notJSON(actual: response.bodyPreview, error))
            }
        case .text(let template)?:
            let expected = (try? template.renderText(in: scope)) ?? template.description
            let actual = String(decoding: response.body, as: UTF8.self)
            if actual != expected {
                out.append(Mismatch(path: "body", expected: expected, actual: response.bodyPreview))
            }
        case nil: break
        }
        return out
    }
}

extension Exchange {
    /// Applies every check group to `response`; only groups with mismatches are returned.
    public func failures(for response: HTTPResponse, in scope: TemplateScope) -> [CheckFailure] {
        checks.compactMap { group in
            let m = group.expectation.mismatches(response, in: scope)
            return m.isEmpty ? nil : CheckFailure(severity: group.severity, decision: group.decision, mismatches: m)
        }
    }

    /// Reads every capture from `response`; a capture of one value that finds nothing is a mismatch.
    public func capture(from response: HTTPResponse) -> (values: [String: JSONValue], missing: [Mismatch]) {
        var values: [String: JSONValue] = [:]
        var missing: [Mismatch] = []
        if captures.isEmpty { return ([:], []) }
        // The body is parsed only for a capture that reads it: most steps capture nothing or a header.
        let readsBody = captures.contains {
            switch $0.source {
            case .json, .matches: true
            case .header, .status: false
            }
        }
        let json = readsBody ? try? response.jsonBody.get() : nil
        for capture in captures {
            switch capture.source {
            case .status: values[capture.name] = .int(response.status.code)
            case .header(let name):
                if let v = response.headerFields[name] {
                    values[capture.name] = .string(v)
                } else {
                    missing.append(
                        Mismatch(
                            path: "header \(name)", expected: "a value to capture as '\(capture.name)'",
                            actual: "(absent)"))
                }
            case .json(let path):
                if let v = json?[path: path] {
                    values[capture.name] = v
                } else {
                    missing.append(
                        Mismatch(
                            path: path.description, expected: "a value to capture as '\(capture.name)'",
                            actual: "(absent)"))
                }
            case .matches(let pattern):
                // Every match, possibly none (also of a body that is not JSON): a list capture never fails.
                values[capture.name] = .array(json.map { pattern.values(in: $0) } ?? [])
            }
        }
        return (values, missing)
    }
}

extension HTTPResponse {
    /// The body parsed as JSON (an empty body is an error); a body whose tree would take more than
    /// ``JSONValue/memoryBudget(forDocumentOf:)`` is an error too, naming the limit.
    public var jsonBody: Result<JSONValue, JSONParseError> {
        Result { () throws(JSONParseError) in
            try JSONValue.parse(body, memoryBudget: JSONValue.memoryBudget(forDocumentOf: body.count))
        }
    }

    /// The body as text for reports, shortened, with non-UTF-8 shown as a byte count.
    public var bodyPreview: String {
        if body.isEmpty { return "(empty body)" }
        guard let text = String(data: body.prefix(400), encoding: .utf8) else {
            return "(\(body.count) bytes, not UTF-8)"
        }
        return body.count > 400 ? text + "..." : text
    }
}
