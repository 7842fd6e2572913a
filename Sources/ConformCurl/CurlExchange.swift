internal import CCurl
import ConformCore
import Foundation

/// One request/response exchange on an easy handle.
enum CurlExchange {
    struct Settings: Sendable {
        var url: String
        var timeoutMilliseconds: Int
        var insecure: Bool
        var maxBodyBytes: Int = ResponseLimits.defaultMaxBodyBytes
        var tls = ClientTLS()
        var proxy: String?

        /// What an easy handle keeps from one exchange to the next: its options set for these are set again only when
        /// they change.
        struct Lasting: Equatable {
            let timeoutMilliseconds: Int
            let insecure: Bool
            let tls: ClientTLS
            let proxy: String?
        }

        var lasting: Lasting {
            Lasting(timeoutMilliseconds: timeoutMilliseconds, insecure: insecure, tls: tls, proxy: proxy)
        }
    }

    /// Configures `handle` for the exchange; the transfer owns everything curl points into until it ends.
    static func prepare(
        _ request: HTTPRequest, settings: Settings, on handle: EasyHandle, cancelled: CancelFlag
    ) -> Result<CurlTransfer, TransportError> {
        if let refusal = refusal(request, url: settings.url) { return .failure(refusal) }
        let method = request.method.rawValue
        let transfer = CurlTransfer(
            handle: handle, method: method, url: settings.url,
            sink: ResponseSink(cancelled: cancelled, maxBodyBytes: settings.maxBodyBytes), body: request.body)
        let h = handle.raw
        let sendsBody = !request.body.isEmpty || method == "POST" || method == "PUT" || method == "PATCH"
        transfer.headerList = headerList(request.headerFields, sendsBody: sendsBody, into: handle.request)
        let lasting = settings.lasting
        if handle.configured != lasting {
            curl_easy_reset(h)
            setLasting(h, settings, errorBuffer: handle.errorBuffer)
            handle.configured = lasting
        } else {
            // The method options the last exchange chose, back to a plain GET (the order matters to libcurl:
            // `CURLOPT_HTTPGET` also clears a POST's body and an upload).
            setLong(h, CURLOPT_NOBODY, 0)
            _ = conform_curl_setopt_ptr(h, CURLOPT_CUSTOMREQUEST, nil)
            setLong(h, CURLOPT_HTTPGET, 1)
        }
        handle.errorBuffer[0] = 0
        let sinkPointer = Unmanaged.passUnretained(transfer.sink).toOpaque()
        setString(h, CURLOPT_URL, settings.url)
        _ = conform_curl_setopt_ptr(h, CURLOPT_HTTPHEADER, transfer.headerList)
        _ = conform_curl_setopt_ptr(h, CURLOPT_WRITEDATA, sinkPointer)
        _ = conform_curl_setopt_ptr(h, CURLOPT_HEADERDATA, sinkPointer)
        _ = conform_curl_setopt_ptr(h, CURLOPT_XFERINFODATA, sinkPointer)
        _ = conform_curl_setopt_ptr(h, CURLOPT_PRIVATE, Unmanaged.passUnretained(transfer).toOpaque())

        if method == "HEAD" {
            setLong(h, CURLOPT_NOBODY, 1)
        } else if sendsBody {
            _ = conform_curl_setopt_off(h, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(transfer.body.count))
            _ = conform_curl_setopt_ptr(h, CURLOPT_POSTFIELDS, UnsafeRawPointer(transfer.body.baseAddress) ?? emptyBody)
            if method != "POST" { setString(h, CURLOPT_CUSTOMREQUEST, method) }
        } else if method != "GET" {
            setString(h, CURLOPT_CUSTOMREQUEST, method)
        }
        return .success(transfer)
    }

    /// Why `request` is not sent at all (a method that is not a token, a URL or field that would break the request),
    /// or `nil`.
    static func refusal(_ request: HTTPRequest, url: String) -> TransportError? {
        guard let problem = HTTPSyntax.problem(in: request) else { return nil }
        return TransportError(
            .other,
            "refused to send \(HTTPSyntax.quoted(request.method.rawValue)) \(HTTPSyntax.quoted(url)): \(problem)")
    }

    /// The options that stay the same from one exchange to the next while `settings` do, set on a handle just reset.
    private static func setLasting(
        _ h: UnsafeMutableRawPointer, _ settings: Settings, errorBuffer: UnsafeMutablePointer<CChar>
    ) {
        setLong(h, CURLOPT_NOSIGNAL, 1)
        setLong(h, CURLOPT_TIMEOUT_MS, settings.timeoutMilliseconds)
        setLong(h, CURLOPT_CONNECTTIMEOUT_MS, settings.timeoutMilliseconds)
        setLong(h, CURLOPT_FOLLOWLOCATION, 0)
        setLong(h, CURLOPT_PATH_AS_IS, 1)
        // HTTP/2 only where ALPN can pick it (HTTPS); plain http:// stays HTTP/1.1 either way.
        setLong(
            h, CURLOPT_HTTP_VERSION,
            settings.tls.http2 ? Int(CURL_HTTP_VERSION_2TLS) : Int(CURL_HTTP_VERSION_1_1))
        setString(h, CURLOPT_PROXY, settings.proxy ?? "")
        setLong(h, CURLOPT_SSL_VERIFYPEER, settings.insecure ? 0 : 1)
        setLong(h, CURLOPT_SSL_VERIFYHOST, settings.insecure ? 0 : 2)
        if let file = settings.tls.caFile { setString(h, CURLOPT_CAINFO, file) }
        // Trust comes from a file alone (docs/tls.md). With libcurl's default CA directory beside the file, libcurl
        // reads and parses the whole file again for every new connection (it keeps the loaded store, per multi
        // handle, only for a file alone): a trust store of 140 certificates cost this one thread about 25 ms a
        // connection, and concurrent exchanges timed out behind it.
        if settings.tls.caFile != nil || CurlDefaults.hasCAFile { _ = conform_curl_setopt_ptr(h, CURLOPT_CAPATH, nil) }
        if let file = settings.tls.certificateFile {
            setString(h, CURLOPT_SSLCERT, file)
            setString(h, CURLOPT_SSLKEY, settings.tls.keyFile ?? file)
        }
        setLong(h, CURLOPT_TCP_NODELAY, 1)
        _ = conform_curl_setopt_ptr(h, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = conform_curl_setopt_cb(h, CURLOPT_WRITEFUNCTION, conformCurlWrite)
        _ = conform_curl_setopt_cb(h, CURLOPT_HEADERFUNCTION, conformCurlHeader)
        setLong(h, CURLOPT_NOPROGRESS, 0)
        _ = conform_curl_setopt_progress(h, conformCurlProgress)
    }

    /// The outcome of a transfer that libcurl ended with `code`.
    static func finish(_ transfer: CurlTransfer, code: CURLcode) -> Result<HTTPResponse, TransportError> {
        let sink = transfer.sink
        let method = transfer.method
        if code != CURLE_OK {
            if let overflow = sink.overflow {
                return .failure(
                    TransportError(
                        .tooLarge,
                        "\(method) \(transfer.url): \(overflow); reading stopped there (raise the limit with --max-body)"
                    ))
            }
            if code == CURLE_ABORTED_BY_CALLBACK && sink.cancelled.isSet {
                return .failure(TransportError(.other, "\(method) \(transfer.url): cancelled"))
            }
            let detail = String(cString: transfer.handle.errorBuffer)
            let error = CurlErrorMapping.error(code: code, detail: detail, method: method, url: transfer.url)
            if error.kind == .connectionReset, let status = sink.status {
                // The answer had begun: the implementation cut its own answer short. Not a reset before any answer,
                // which a retry may send again; the request may well have been carried out.
                return .failure(
                    TransportError(
                        .invalidResponse,
                        "\(method) \(transfer.url): the implementation closed the connection in the middle of its "
                            + "answer (after the status line \(status)); \(detail.isEmpty ? "curl error \(code.rawValue)" : detail)"
                    ))
            }
            return .failure(error)
        }
        guard let status = sink.status else {
            return .failure(
                TransportError(.invalidResponse, "\(method) \(transfer.url): the server sent no HTTP status line"))
        }
        var response = HTTPResponse(
            status: HTTPStatus(status), headerFields: HTTPFields(sink.headers), body: sink.body,
            timing: timing(transfer.handle.raw))
        response.httpVersion = httpVersion(transfer.handle.raw)
        return .success(response)
    }

    /// Header lines for curl: the request's own headers, then blanks that stop curl adding its defaults, written into
    /// `memory` (the handle's, reused from one exchange to the next).
    static func headerList(
        _ fields: HTTPFields, sendsBody: Bool, into memory: CurlRequestMemory
    ) -> UnsafeMutablePointer<curl_slist>? {
        memory.beginLines()
        // `perform` refuses names that are not tokens and values with line breaks before they get here.
        var accept = false
        var contentType = false
        for field in fields where !HTTPFields.sameName(field.name, "Content-Length") {
            if field.value.isEmpty {
                memory.appendLine(field.name, ";")
            } else {
                memory.appendLine(field.name, ": ", field.value)
            }
            accept = accept || HTTPFields.sameName(field.name, "Accept")
            contentType = contentType || HTTPFields.sameName(field.name, "Content-Type")
        }
        memory.appendLine("Expect:")
        if !accept { memory.appendLine("Accept:") }
        if sendsBody && !contentType { memory.appendLine("Content-Type:") }
        return memory.list()
    }

    /// The version the exchange was spoken in (`HTTP/1.1`, `HTTP/2`), as libcurl negotiated it.
    private static func httpVersion(_ h: UnsafeMutableRawPointer) -> String? {
        var version = 0
        _ = conform_curl_getinfo_long(h, CURLINFO_HTTP_VERSION, &version)
        switch version {
        case Int(CURL_HTTP_VERSION_1_0): return "HTTP/1.0"
        case Int(CURL_HTTP_VERSION_1_1): return "HTTP/1.1"
        case Int(CURL_HTTP_VERSION_2_0): return "HTTP/2"
        case Int(CURL_HTTP_VERSION_3): return "HTTP/3"
        default: return nil
        }
    }

    private static func timing(_ h: UnsafeMutableRawPointer) -> HTTPTiming {
        var total = 0.0
        var connect = 0.0
        var firstByte = 0.0
        var connects = 0
        _ = conform_curl_getinfo_double(h, CURLINFO_TOTAL_TIME, &total)
        _ = conform_curl_getinfo_double(h, CURLINFO_CONNECT_TIME, &connect)
        _ = conform_curl_getinfo_double(h, CURLINFO_STARTTRANSFER_TIME, &firstByte)
        _ = conform_curl_getinfo_long(h, CURLINFO_NUM_CONNECTS, &connects)
        return HTTPTiming(total: total, connect: connect, firstByte: firstByte, reusedConnection: connects == 0)
    }

    static func setLong(_ h: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Int) {
        _ = conform_curl_setopt_long(h, option, value)
    }

    static func setString(_ h: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) {
        _ = value.withCString { conform_curl_setopt_ptr(h, option, $0) }
    }
}

nonisolated(unsafe) private let emptyBody = UnsafeRawPointer(UnsafeMutablePointer<UInt8>.allocate(capacity: 1))

/// Collects the final response's status line, raw headers and body as curl delivers them.
final class ResponseSink {
    let cancelled: CancelFlag
    let maxBodyBytes: Int
    var status: Int?
    var headers: [HTTPFields.Field] = []
    var headerBytes = 0
    var body = Data()
    /// Why reading stopped early: the body or the headers went past their limit.
    var overflow: String?

    init(cancelled: CancelFlag, maxBodyBytes: Int = ResponseLimits.defaultMaxBodyBytes) {
        self.cancelled = cancelled
        self.maxBodyBytes = maxBodyBytes
    }

    /// Appends body bytes; `false` (stop reading) once the body would pass the limit.
    func append(_ bytes: UnsafeRawPointer, count: Int) -> Bool {
        guard body.count + count <= maxBodyBytes else {
            overflow = "the response body is larger than the limit of \(maxBodyBytes) bytes"
            body = Data()
            return false
        }
        body.append(bytes.assumingMemoryBound(to: UInt8.self), count: count)
        return true
    }

    /// Takes one header line; `false` (stop reading) once the headers pass their limit.
    func header(_ bytes: UnsafeRawBufferPointer) -> Bool {
        headerBytes += bytes.count
        guard headerBytes <= ResponseLimits.maxHeaderBytes else {
            overflow = "the response headers are larger than the limit of \(ResponseLimits.maxHeaderBytes) bytes"
            headers = []
            return false
        }
        headerLine(bytes)
        return true
    }

    func headerLine(_ bytes: UnsafeRawBufferPointer) {
        // Works on bytes: header lines arrive once per header per exchange, on the hot path.
        func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        if end == 0 { return }
        let line = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
        func text(_ range: Range<Int>) -> String {
            var lower = range.lowerBound
            var upper = range.upperBound
            while lower < upper, isBlank(line[lower]) { lower += 1 }
            while upper > lower, isBlank(line[upper - 1]) { upper -= 1 }
            return String(decoding: UnsafeRawBufferPointer(rebasing: line[lower..<upper]), as: UTF8.self)
        }
        if line.starts(with: "HTTP/".utf8) {
            // A new status line starts a new header block (after 100 Continue or another 1xx).
            if line.allSatisfy({ $0 < 0x80 }) {
                status = Self.statusCode(ascii: line)
            } else {
                let parts = text(0..<line.count).split(separator: " ", maxSplits: 2)
                status = parts.count >= 2 ? Int(parts[1]) : nil
            }
            headers = []
            headers.reserveCapacity(16)
            return
        }
        if isBlank(line[0]), !headers.isEmpty {
            headers[headers.count - 1].value += " " + text(0..<line.count)
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        headers.append(HTTPFields.Field(name: text(0..<colon), value: text((colon + 1)..<line.count)))
    }
}

extension ResponseSink {
    /// The code of an ASCII status line: its second word, the line's blanks trimmed and its words split on spaces,
    /// as an `Int`. Read on bytes: in ASCII every byte is a character, so this is the split on characters.
    static func statusCode(ascii line: UnsafeRawBufferPointer) -> Int? {
        func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        var lower = 0
        var upper = line.count
        while lower < upper, isBlank(line[lower]) { lower += 1 }
        while upper > lower, isBlank(line[upper - 1]) { upper -= 1 }
        var word = 0
        var i = lower
        while i < upper {
            if line[i] == 0x20 {
                i += 1
                continue
            }
            var end = i
            while end < upper, line[end] != 0x20 { end += 1 }
            if word == 1 {
                return Int(String(decoding: UnsafeRawBufferPointer(rebasing: line[i..<end]), as: UTF8.self))
            }
            word += 1
            i = end
        }
        return nil
    }
}

func conformCurlWrite(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?)
    -> Int
{
    guard let data, let user else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(user).takeUnretainedValue()
    return sink.append(UnsafeRawPointer(data), count: size * count) ? size * count : 0
}

func conformCurlHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?
) -> Int {
    guard let data, let user else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(user).takeUnretainedValue()
    return sink.header(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
}

func conformCurlProgress(
    _ user: UnsafeMutableRawPointer?, _ downloadTotal: curl_off_t, _ downloaded: curl_off_t, _ uploadTotal: curl_off_t,
    _ uploaded: curl_off_t
) -> Int32 {
    guard let user else { return 0 }
    return Unmanaged<ResponseSink>.fromOpaque(user).takeUnretainedValue().cancelled.isSet ? 1 : 0
}

/// What this libcurl was built to trust when it is told nothing.
enum CurlDefaults {
    /// Whether libcurl's default CA file (Debian's `/etc/ssl/certs/ca-certificates.crt`) exists: then it alone is
    /// trusted, without the default CA directory (which holds the same certificates, one a file).
    static let hasCAFile: Bool = caFile != nil

    /// libcurl's default CA file, when it exists and can be read.
    static let caFile: String? = {
        guard let h = curl_easy_init() else { return nil }
        defer { curl_easy_cleanup(h) }
        var path: UnsafeMutableRawPointer?
        guard conform_curl_getinfo_ptr(h, CURLINFO_CAINFO, &path) == CURLE_OK, let path else { return nil }
        let file = path.assumingMemoryBound(to: CChar.self)
        return access(file, R_OK) == 0 ? String(cString: file) : nil
    }()
}
