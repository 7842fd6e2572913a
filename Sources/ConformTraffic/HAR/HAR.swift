import ConformCore
import ConformDiagnostics
import Foundation

/// HTTP Archive 1.2 import and export, so traffic moves between Conform and browser devtools, Charles or mitmproxy.
public enum HAR {
    /// Conform's own fields on each entry (`seq`, `flow`, `upstream`), so that an export imports back unchanged.
    static let extensionKey = "_conform"

    /// Finds a body a tool stored beside the HAR (`content._file`: Playwright's `attach` mode, or an entry of its
    /// ZIP); on disk only through ``ConfinedFile`` (inside the HAR's directory, no links), else it says why not.
    public typealias Attachments = @Sendable (String) throws(ConfinedFile.Refusal) -> Data

    /// The most JSON values read from `bytes` of a HAR at once (an entry, or the whole file when it is read
    /// whole): 200,000, or one per 64 bytes of a larger text, so a parsed tree stays within about four times the
    /// text that holds it.
    static func maxValues(forBytes bytes: Int) -> Int { max(200_000, bytes / 64) }

    /// The entries and the app events of a HAR parsed whole: the fallback for what ``HARLayout`` does not scan.
    static func entryValues(
        _ data: Data, file: String
    ) throws(HARError) -> (entries: [JSONValue], events: JSONValue?, credentials: JSONValue?) {
        let root: JSONValue
        do {
            root = try JSONValue.parse(data, maxValues: maxValues(forBytes: data.count))
        } catch {
            throw HARError(
                file: file, path: nil, line: error.line, column: error.column, message: "not JSON: \(error.message)",
                help: "a HAR file is one JSON object with a `log` member; export it again from the tool")
        }
        guard let log = root["log"], case .object = log else {
            throw HARError(
                file: file, path: "$.log", message: "missing the `log` object",
                help: "a HAR file looks like {\"log\": {\"entries\": [...]}}")
        }
        guard let entries = log["entries"]?.arrayValue else {
            throw HARError(
                file: file, path: "$.log.entries", message: "missing the `entries` array", help: "add \"entries\": []")
        }
        return (entries, log[eventsKey], log[credentialsKey])
    }

    /// One entry as an exchange; an attached body that was refused (a link, a path out of the HAR's directory) is
    /// left out, noted in `omitted`, and reported in `refusals`. An entry Conform did not write is given the
    /// upstream and flow `profile` says.
    static func importEntry(
        _ entry: JSONValue, index: Int, file: String, attachments: Attachments?, profile: ProtocolProfile = .none,
        refusals: inout [HARError]
    ) throws(HARError) -> RecordedExchange {
        var omitted: [String] = []
        let base = "$.log.entries[\(index)]"
        guard case .object = entry else {
            throw HARError(
                file: file, path: base, message: "expected an object", help: "each entry is {request, response, ...}")
        }
        guard let req = entry["request"], case .object = req else {
            throw HARError(
                file: file, path: "\(base).request", message: "missing the request",
                help: "each entry needs a `request` object")
        }
        guard let method = req["method"]?.stringValue, !method.isEmpty else {
            throw HARError(
                file: file, path: "\(base).request.method", message: "missing or not a string",
                help: "set the HTTP method, e.g. \"POST\"")
        }
        guard var url = req["url"]?.stringValue, !url.isEmpty else {
            throw HARError(
                file: file, path: "\(base).request.url", message: "missing or not a string",
                help: "set the absolute request URL")
        }
        if !url.contains("?"), let query = req["queryString"]?.arrayValue, !query.isEmpty {
            url +=
                "?"
                + query.compactMap { item in
                    item["name"]?.stringValue.map {
                        "\(percentEncode($0))=\(percentEncode(item["value"]?.stringValue ?? ""))"
                    }
                }.joined(separator: "&")
        }
        let requestHeaders = try headers(
            req["headers"], path: "\(base).request.headers", file: file, message: "request", omitted: &omitted)
        let (requestBody, refusedRequest) = try postData(
            req["postData"], path: "\(base).request.postData", file: file, attachments: attachments)
        if let refusal = refusedRequest {
            omitted.append("request.body: \(refusal.message)")
            refusals.append(refusal)
        } else if requestBody.isEmpty, let size = req["bodySize"]?.numberValue, size > 0 {
            omitted.append("request.body: \(Int(exactly: size) ?? 0) bytes left out of the HAR")
        }
        let request = HTTPRequest(
            method: HTTPMethod(method), url: url,
            headerFields: ContentDecoding.alreadyDecoded(requestHeaders, requestBody), body: requestBody)
        if let problem = HTTPSyntax.problem(in: request) {
            throw HARError(
                file: file, path: "\(base).request", message: "\(problem); it would change what goes on the wire",
                help: "fix or delete this entry")
        }

        guard let res = entry["response"], case .object = res else {
            throw HARError(
                file: file, path: "\(base).response", message: "missing the response",
                help: "each entry needs a `response` object")
        }
        guard case .int(var status)? = res["status"] ?? nil else {
            throw HARError(
                file: file, path: "\(base).response.status", message: "missing or not an integer",
                help: "set the HTTP status code, e.g. 200")
        }
        let failure = [entry["_error"], res["_error"], res["_failureText"], entry["_failureText"]]
            .compactMap { $0??.stringValue }.first { !$0.isEmpty }
        let responseHeaders = try headers(
            res["headers"], path: "\(base).response.headers", file: file, message: "response", omitted: &omitted)
        var responseBody = Data()
        if status <= 0 || failure != nil {
            // The request failed: there is no response to judge or replay against.
            status = 0
            omitted.append("response: none, the request failed (\(failure ?? "status \(status)"))")
        } else {
            let read = try content(
                res["content"], path: "\(base).response.content", file: file, attachments: attachments)
            responseBody = read.body
            if let note = read.omitted { omitted.append("response.body: \(note)") }
            if let refusal = read.refusal { refusals.append(refusal) }
        }
        var response = HTTPResponse(
            status: HTTPStatus(status), headerFields: ContentDecoding.alreadyDecoded(responseHeaders, responseBody),
            body: responseBody)
        // HTTP/1.1 is what a recording means without a version, so only another one is kept.
        response.httpVersion = (res["httpVersion"]?.stringValue).flatMap(HTTPVersionText.normalized).flatMap {
            $0 == "HTTP/1.1" ? nil : $0
        }

        var started = Date(timeIntervalSince1970: 0)
        if let text = entry["startedDateTime"]?.stringValue {
            guard let date = ISOTimestamp.parse(text) else {
                throw HARError(
                    file: file, path: "\(base).startedDateTime", message: "'\(text)' is not an ISO-8601 date-time",
                    help: "use e.g. 2026-01-05T10:00:00.000Z")
            }
            started = date
        }
        let duration = entryDuration(entry)
        let conform = entry[extensionKey]
        var noted = Set(omitted)
        for note in conform?["omitted"]?.arrayValue ?? [] {
            if let text = note.stringValue, noted.insert(text).inserted { omitted.append(text) }
        }
        let seq: Int
        if case .int(let s)? = conform?["seq"] { seq = s } else { seq = index + 1 }
        let upstream = conform?["upstream"]?.stringValue ?? profile.upstream(forPath: URLParts(url).path)
        let flow = conform?["flow"]?.stringValue ?? profile.flows.flow(request: request, response: response)
        var exchange = RecordedExchange(
            seq: seq, flow: flow, upstream: upstream, startedAt: started, durationMs: duration, request: request,
            response: response, omitted: omitted)
        if case .bool(true)? = conform?["resynchronised"] { exchange.resynchronised = true }
        return exchange
    }

    /// The fields of `message`; a list over ``HTTPFields/maxCount`` is left out and noted in `omitted`.
    private static func headers(
        _ value: JSONValue?, path: String, file: String, message: String, omitted: inout [String]
    ) throws(HARError) -> HTTPFields {
        guard let value, value != .null else { return HTTPFields() }
        guard let list = value.arrayValue else {
            throw HARError(
                file: file, path: path, message: "expected an array of {name, value}",
                help: "write headers as [{\"name\": \"Accept\", \"value\": \"*/*\"}]")
        }
        if list.count > HTTPFields.maxCount {
            omitted.append(RecordedExchange.tooManyFields(message, list.count))
            return HTTPFields()
        }
        var fields = HTTPFields()
        for (i, item) in list.enumerated() {
            guard let name = item["name"]?.stringValue else {
                throw HARError(
                    file: file, path: "\(path)[\(i)].name", message: "missing or not a string",
                    help: "each header needs a name")
            }
            // HTTP/2 pseudo-headers (:authority, :method, :path, :scheme, :status) are not header fields.
            if name.hasPrefix(":") { continue }
            let v: String
            switch item["value"] {
            case .string(let s)?: v = s
            case .int(let n)?: v = String(n)
            case nil, .null?: v = ""
            default:
                throw HARError(
                    file: file, path: "\(path)[\(i)].value", message: "expected a string",
                    help: "quote the header value")
            }
            fields.append(name: name, value: v)
        }
        return fields
    }

    /// A request body: an attached side file, inline text or form parameters; or the refusal of its side file.
    private static func postData(_ value: JSONValue?, path: String, file: String, attachments: Attachments?)
        throws(HARError) -> (body: Data, refusal: HARError?)
    {
        guard let value, value != .null else { return (Data(), nil) }
        if let name = value["_file"]?.stringValue, let attachments {
            do {
                return (try attachments(name), nil)
            } catch .missing {
                // Not there: the inline text, if the tool kept it too, is the body.
            } catch {
                return (Data(), refused(name, error, path: "\(path)._file", file: file))
            }
        }
        if let text = value["text"]?.stringValue {
            return (try decode(text, encoding: value["encoding"]?.stringValue, path: path, file: file), nil)
        }
        if let params = value["params"]?.arrayValue, !params.isEmpty {
            let pairs = params.map { p in
                percentEncode(p["name"]?.stringValue ?? "") + "=" + percentEncode(p["value"]?.stringValue ?? "")
            }
            return (Data(pairs.joined(separator: "&").utf8), nil)
        }
        return (Data(), nil)
    }

    /// The largest attached body read (1 GiB, the decompression limit).
    public static let maxAttachmentBytes = 1 << 30

    /// Why an attached body was left out, for the entry's diagnostic.
    private static func refused(_ name: String, _ refusal: ConfinedFile.Refusal, path: String, file: String)
        -> HARError
    {
        HARError(
            file: file, path: path,
            message: "attached body '\(name)' refused: \(refusal); the body is left out and the entry cannot be judged",
            help:
                "an attached body must be a regular file inside the HAR's directory, named by a relative path without links or '..'"
        )
    }

    /// A response body: inline text, an attached side file, or a note saying what is missing (and why it was refused).
    private static func content(_ value: JSONValue?, path: String, file: String, attachments: Attachments?)
        throws(HARError) -> (body: Data, omitted: String?, refusal: HARError?)
    {
        guard let value, value != .null else { return (Data(), nil, nil) }
        if let text = value["text"]?.stringValue {
            return (try decode(text, encoding: value["encoding"]?.stringValue, path: path, file: file), nil, nil)
        }
        let size = value["size"]?.numberValue.flatMap { IntegerText.exactly($0, in: -1...Int(Int32.max)) } ?? 0
        if let name = value["_file"]?.stringValue {
            guard let attachments else {
                return (Data(), "\(size) bytes attached as '\(name)', which is not beside the HAR", nil)
            }
            do {
                return (try attachments(name), nil, nil)
            } catch .missing {
                return (Data(), "\(size) bytes attached as '\(name)', which is not beside the HAR", nil)
            } catch {
                let refusal = refused(name, error, path: "\(path)._file", file: file)
                return (Data(), "\(size) bytes attached as '\(name)', refused: \(error)", refusal)
            }
        }
        // No text and a size other than 0 (-1: the tool did not know it): the body exists but is not here.
        return (Data(), size > 0 ? "\(size) bytes left out of the HAR" : size < 0 ? "left out of the HAR" : nil, nil)
    }

    private static func decode(_ text: String, encoding: String?, path: String, file: String) throws(HARError) -> Data {
        guard let encoding, !encoding.isEmpty else { return Data(text.utf8) }
        guard encoding.lowercased() == "base64" else {
            throw HARError(
                file: file, path: "\(path).encoding", message: "unsupported encoding '\(encoding)'",
                help: "only base64 (or no encoding) is defined for HAR text")
        }
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
            throw HARError(
                file: file, path: "\(path).text", message: "not valid base64",
                help: "re-export the capture, or remove \"encoding\": \"base64\" for plain text")
        }
        return data
    }
}

/// Why a HAR file cannot be imported, naming the JSON path (or line and column) of what is wrong.
public struct HARError: DiagnosticConvertible, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var path: String?
    public var line: Int = 0
    public var column: Int = 0
    public var message: String
    public var help: String

    /// The problem as a diagnostic: `har.entry-invalid` inside an entry, else `har.invalid`; the JSON path leads.
    public var diagnostic: Diagnostic {
        Diagnostic(
            path?.contains(".entries[") == true ? .harEntryInvalid : .harInvalid, file: file,
            mark: line > 0 ? SourceMark(line: line, column: column) : nil,
            message: (path.map { "\($0): " } ?? "") + message, help: help)
    }

    public var description: String { diagnostic.rendered(sourceLine: nil) }

    /// The same problem as a warning: reported, and the rest of the HAR still read.
    public var warning: String {
        var d = diagnostic
        d.severity = .warning
        return d.rendered(sourceLine: nil)
    }
}
