import Foundation

extension RequestSpec {
    /// Server role: every mismatch between this description and a request a client sent.
    public func mismatches(_ request: HTTPRequest, in scope: TemplateScope) -> [Mismatch] {
        var out: [Mismatch] = []
        if let expected = try? method.renderText(in: scope), HTTPMethod(expected) != request.effectiveMethod {
            out.append(Mismatch(path: "method", expected: expected, actual: request.effectiveMethod.rawValue))
        }
        if let expectedURL = try? url.renderText(in: scope) {
            let expectedPath = URLParts(expectedURL).path
            if expectedPath != request.path {
                out.append(Mismatch(path: "path", expected: expectedPath, actual: request.path))
            }
        }
        let items = request.queryItems
        for item in query {
            let actual = items.first { $0.name == item.name }.map { JSONValue.string($0.value) }
            out += item.value.mismatches(actual, at: "query \(item.name)", in: scope)
        }
        for header in headers {
            let values = request.headerFields.values(for: header.name)
            out += header.value.mismatches(
                values.isEmpty ? nil : .string(values.joined(separator: ", ")), at: "header \(header.name)", in: scope)
        }
        if case .json(let spec)? = body {
            out += Mismatch.inJSONBody(request.body) { spec.mismatches($0, in: scope) }
        }
        return out
    }
}

extension ResponseSpec {
    /// Server role: renders the response a server sends from this description (status defaults to 200).
    public func render(in scope: TemplateScope) throws(TemplateError) -> HTTPResponse {
        var code = 200
        if let status {
            switch status {
            case .statusClass(let c): code = c * 100
            default: if case .int(let i) = try status.render(in: scope) { code = i }
            }
        }
        var (fields, data) = try BodySpec.renderMessage(headers: headers, body: body, in: scope)
        fields["Content-Length"] = String(data.count)
        return HTTPResponse(status: HTTPStatus(code), headerFields: fields, body: data)
    }
}
