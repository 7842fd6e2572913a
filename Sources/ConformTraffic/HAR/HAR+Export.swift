import ConformCore
import Foundation

extension HAR {
    /// Writes exchanges as a HAR 1.2 document (pretty JSON) that devtools, Charles and mitmproxy can open; app events
    /// go to the custom `log._conformEvents` array, numbered among the entries' `_conform.seq`; the credentials the
    /// recording's redaction replaced, by role and pseudonym, to `log._conformCredentials`.
    public static func export(
        _ exchanges: [RecordedExchange], events: [AppEvent] = [], credentials: [RedactedCredential] = [],
        creator: String = "conform", version: String = "1"
    ) -> Data {
        var text = ""
        var exporter = Exporter(credentials: credentials, creator: creator, version: version) { text += $0 }
        for event in events { exporter.add(event) }
        for exchange in exchanges { exporter.add(exchange) }
        exporter.finish()
        return Data(text.utf8)
    }

    /// A HAR written as the recording is read, entry by entry: `write` gets the document in pieces, so exporting
    /// holds one exchange at a time (and the app events' text, written after the entries) whatever the recording's
    /// size. ``HAR/export(_:events:credentials:creator:version:)`` is this into one string.
    public struct Exporter {
        private let write: (String) -> Void
        private var entries = 0
        private var events: [String] = []

        /// Writes the document's head.
        public init(
            credentials: [RedactedCredential] = [], creator: String = "conform", version: String = "1",
            write: @escaping (String) -> Void
        ) {
            self.write = write
            var text = "{\n  \"log\": {\n    \"version\": \"1.2\",\n    \"creator\": "
            text += (["name": .string(creator), "version": .string(version)] as JSONValue).serialized()
            if !credentials.isEmpty {
                text += ",\n    \"\(credentialsKey)\": " + JSONValue.array(credentials.map(\.json)).serialized()
            }
            text += ",\n    \"entries\": ["
            write(text)
        }

        /// Writes one entry.
        public mutating func add(_ exchange: RecordedExchange) {
            write((entries == 0 ? "\n      " : ",\n      ") + entry(exchange).serialized())
            entries += 1
        }

        /// Keeps an app event for `log._conformEvents`, written after the entries.
        public mutating func add(_ event: AppEvent) {
            events.append(event.json.serialized())
        }

        /// Writes the events and the document's end.
        public mutating func finish() {
            var text = entries == 0 ? "]" : "\n    ]"
            if !events.isEmpty {
                text += ",\n    \"\(eventsKey)\": ["
                text += events.map { "\n      " + $0 }.joined(separator: ",")
                text += "\n    ]"
            }
            write(text + "\n  }\n}\n")
            events = []
        }
    }

    /// The exchange's URL as HAR 1.2 wants it, absolute: as recorded when it has an origin, else the recorded
    /// `Host` (when it is a plain `host[:port]`) or the upstream's name under `.conform.invalid`, before the target.
    static func absoluteURL(_ e: RecordedExchange) -> String {
        let parts = URLParts(e.request.url)
        if !parts.origin.isEmpty { return e.request.url }
        let isAuthority = HTTPSyntax.isHostAndPort
        let host =
            e.request.headerFields["Host"].flatMap { isAuthority($0) ? $0 : nil }
            ?? "\(isAuthority(e.upstream) ? e.upstream : "upstream").conform.invalid"
        return "http://\(host)\(parts.target)"
    }

    /// One HAR entry, with Conform's numbering kept under `_conform`.
    static func entry(_ e: RecordedExchange) -> JSONValue {
        var request = JSONObject()
        request["method"] = .string(e.request.method.rawValue)
        request["url"] = .string(absoluteURL(e))
        // The version the exchange was spoken in, known when a network transport made it (HTTP/1.1 otherwise).
        request["httpVersion"] = .string(e.response.httpVersion ?? "HTTP/1.1")
        request["cookies"] = []
        request["headers"] = headers(e.request.headerFields)
        request["queryString"] = .array(
            e.request.queryItems.map { ["name": .string($0.name), "value": .string($0.value)] })
        if !e.request.body.isEmpty {
            var post = body(e.request.body)
            post["mimeType"] = .string(e.request.headerFields["Content-Type"] ?? "")
            request["postData"] = .object(post)
        }
        request["headersSize"] = -1
        request["bodySize"] = .int(e.request.body.count)

        var content = body(e.response.body)
        content["size"] = .int(e.response.body.count)
        content["mimeType"] = .string(e.response.headerFields["Content-Type"] ?? "")
        var response = JSONObject()
        response["status"] = .int(e.response.status.code)
        response["statusText"] = .string(e.response.status.reasonPhrase)
        response["httpVersion"] = .string(e.response.httpVersion ?? "HTTP/1.1")
        response["cookies"] = []
        response["headers"] = headers(e.response.headerFields)
        response["content"] = .object(content)
        response["redirectURL"] = .string(e.response.headerFields["Location"] ?? "")
        response["headersSize"] = -1
        response["bodySize"] = .int(e.response.body.count)

        var entry = JSONObject()
        entry["startedDateTime"] = .string(ISOTimestamp.format(e.startedAt))
        entry["time"] = .double(e.durationMs)
        entry["request"] = .object(request)
        entry["response"] = .object(response)
        entry["cache"] = [:]
        entry["timings"] = ["send": 0, "wait": .double(e.durationMs), "receive": 0]
        var conform: JSONValue = ["seq": .int(e.seq), "flow": .string(e.flow), "upstream": .string(e.upstream)]
        if !e.omitted.isEmpty, case .object(var object) = conform {
            object["omitted"] = .array(e.omitted.map { .string($0) })
            conform = .object(object)
        }
        if e.resynchronised, case .object(var object) = conform {
            object["resynchronised"] = .bool(true)
            conform = .object(object)
        }
        entry[extensionKey] = conform
        return .object(entry)
    }

    private static func headers(_ fields: HTTPFields) -> JSONValue {
        .array(fields.map { ["name": .string($0.name), "value": .string($0.value)] })
    }

    private static func body(_ data: Data) -> JSONObject {
        var out = JSONObject()
        if let text = String(validating: data, as: UTF8.self) {
            out["text"] = .string(text)
        } else {
            out["text"] = .string(data.base64EncodedString())
            out["encoding"] = "base64"
        }
        return out
    }
}
