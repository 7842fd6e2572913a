import ConformCore
import Foundation

/// Sends each pseudonym of a redacted recording as its live value (``LiveCredentials``), in the URL, the headers
/// and the body, and takes the live values out of what comes back (answers and errors) again: above this
/// transport, in the outcomes and every report written from them, only the pseudonyms are ever seen.
public struct CredentialTransport: TransportDecorator {
    public let inner: any Transport
    let live: [(pseudonym: String, value: String)]

    public init(inner: any Transport, credentials: LiveCredentials) {
        self.inner = inner
        // The longest first, so a pseudonym that another one starts with never takes part of it.
        self.live = credentials.values.map { ($0.key, $0.value) }.sorted { $0.pseudonym.count > $1.pseudonym.count }
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard !live.isEmpty else { return try await inner.send(request) }
        var out = request
        out.url = swapped(request.url, toLive: true)
        out.headerFields = swapped(request.headerFields, toLive: true)
        out.body = swapped(request.body, toLive: true)
        if out.body.count != request.body.count, out.headerFields["Content-Length"] != nil {
            out.headerFields["Content-Length"] = String(out.body.count)
        }
        let response: HTTPResponse
        do {
            response = try await inner.send(out)
        } catch let error as TransportError {
            throw TransportError(error.kind, swapped(error.message, toLive: false))
        }
        var back = response
        back.headerFields = swapped(response.headerFields, toLive: false)
        back.body = swapped(response.body, toLive: false)
        if back.body.count != response.body.count, back.headerFields["Content-Length"] != nil {
            back.headerFields["Content-Length"] = String(back.body.count)
        }
        return back
    }

    private func swapped(_ text: String, toLive: Bool) -> String {
        var out = text
        for (pseudonym, value) in live {
            let (from, to) = toLive ? (pseudonym, value) : (value, pseudonym)
            if out.contains(from) { out = out.replacingOccurrences(of: from, with: to) }
        }
        return out
    }

    private func swapped(_ fields: HTTPFields, toLive: Bool) -> HTTPFields {
        HTTPFields(fields.map { HTTPFields.Field(name: $0.name, value: swapped($0.value, toLive: toLive)) })
    }

    private func swapped(_ body: Data, toLive: Bool) -> Data {
        guard !body.isEmpty, let text = String(validating: body, as: UTF8.self) else { return body }
        let out = swapped(text, toLive: toLive)
        return out == text ? body : Data(out.utf8)
    }
}
