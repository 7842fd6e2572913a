internal import CMicroHTTPD
import ConformCore
import Foundation
import Synchronization

/// What the C callbacks share: the handler, the limits, the connection watch and the log sink.
final class ServerContext: Sendable {
    let handler: any HTTPHandler
    let maxBodyBytes: Int
    let maxHeaderBytes: Int
    let maxHeaderFields: Int
    let limits: HTTPServerLimits
    let watch: ConnectionWatch
    let log: HTTPServer.LogHandler?
    /// Whether connections come from a forward proxy's acceptor (``HTTPServer/addConnection(_:origin:)``) rather
    /// than a listening socket: requests then name their origin, and tunnelled ones get their tunnel's.
    let forwarding: Bool
    /// The origins of tunnelled connections handed over but not yet seen opening, by socket.
    let pendingOrigins = Mutex<[Int32: TunnelOrigin]>([:])
    /// The handler when it answers later (the connection is suspended meanwhile), else `nil`; never with a thread
    /// per connection, where the connection's own thread waits.
    let deferred: (any DeferredHTTPHandler)?
    let deferredAnswers = DeferredAnswers()

    init(handler: any HTTPHandler, limits: HTTPServerLimits, log: HTTPServer.LogHandler?, forwarding: Bool = false) {
        self.forwarding = forwarding
        self.handler = handler
        self.maxBodyBytes = limits.maxBodyBytes
        self.maxHeaderBytes = limits.maxHeaderBytes
        self.maxHeaderFields = limits.maxHeaderFields
        self.limits = limits
        self.watch = ConnectionWatch(limits: limits)
        self.log = log
        self.deferred = limits.threadPerConnection ? nil : handler as? any DeferredHTTPHandler
    }

    /// `response`, or, when its head would not fit the connection's memory (``HTTPServerLimits/maxResponseHeadBytes``),
    /// a 500 in the handler's envelope saying so: the library would otherwise drop the connection without a word.
    func sendable(_ response: HTTPResponse) -> HTTPResponse {
        if limits.fitsResponseHead(response) { return response }
        return handler.refusal(
            status: 500, code: "INTERNAL_SERVER_ERROR",
            message: "the answer's head is larger than the server's limit of \(limits.maxResponseHeadBytes) bytes")
    }

    /// The handler's envelope for `refusal`.
    func response(for refusal: RequestHeadRules.Refusal) -> HTTPResponse {
        handler.refusal(status: HTTPStatus(refusal.status), code: refusal.code, message: refusal.message)
    }
}

/// Per-request state carried in libmicrohttpd's `con_cls`; only the thread serving the connection touches it.
final class Upload {
    /// The request target as the client sent it (query included), before any decoding.
    let rawURI: [UInt8]
    /// Where libmicrohttpd holds the target in its read buffer (``RequestHeadLayout``), or 0.
    let rawURIAddress: Int
    /// The header fields, read and checked once when the head arrives.
    var headerFields = HTTPFields()
    var sawHeaders = false
    var refused = false
    /// A body without a declared length grew past the limit: the rest is read and dropped, then 413 is answered.
    var overLimit = false
    var body = Data()
    /// The absolute URL the handler gets in forwarding mode (a tunnelled request's origin and target).
    var forwardURL: String?
    /// Set once a deferred handler has the request; its answer arrives here.
    var pending: PendingAnswer?

    init(rawURI: UnsafePointer<CChar>?) {
        self.rawURI = rawURI.map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? [0x2F]
        self.rawURIAddress = Int(bitPattern: rawURI)
    }
}

/// Called once per request with the raw URI (query included); its result becomes `con_cls`.
func conformServerURILog(
    _ cls: UnsafeMutableRawPointer?, _ uri: UnsafePointer<CChar>?, _ connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    let upload = Upload(rawURI: uri)
    return Unmanaged.passRetained(upload).toOpaque()
}

/// Releases the request's ``Upload`` when libmicrohttpd is done with it (answered, failed or timed out).
func conformServerCompleted(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ reason: MHD_RequestTerminationCode
) {
    let context = cls.map { Unmanaged<ServerContext>.fromOpaque($0).takeUnretainedValue() }
    if let context, let connection { context.watch.requestDone(connection) }
    guard let slot, let raw = slot.pointee else { return }
    let upload = Unmanaged<Upload>.fromOpaque(raw)
    if upload.takeUnretainedValue().pending != nil { context?.deferredAnswers.finished() }
    upload.release()
    slot.pointee = nil
}

/// Routes libmicrohttpd's own messages to the injected log handler.
func conformServerLog(_ cls: UnsafeMutableRawPointer?, _ format: UnsafePointer<CChar>?, _ args: CVaListPointer?) {
    guard let cls, let format, let args else { return }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    guard let log = context.log else { return }
    var buffer = [CChar](repeating: 0, count: 1024)
    _ = conform_mhd_format_log(&buffer, buffer.count, format, args)
    let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    log(message.trimmingCharacters(in: .whitespacesAndNewlines))
}

/// The access handler: checks the head, collects the body, then answers on a later call so keep-alive survives.
func conformServerAccess(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadSize: UnsafeMutablePointer<Int>?, _ slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let slot, let uploadSize else { return .NO }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    let upload: Upload
    if let raw = slot.pointee {
        upload = Unmanaged<Upload>.fromOpaque(raw).takeUnretainedValue()
    } else {
        upload = Upload(rawURI: url)
        slot.pointee = Unmanaged.passRetained(upload).toOpaque()
    }
    let methodBytes = UnsafeRawBufferPointer(start: method, count: method.map { strlen($0) } ?? 0)

    if !upload.sawHeaders {
        upload.sawHeaders = true
        context.watch.headReceived(connection)
        switch readHead(connection, method: methodBytes, version: version, upload, context) {
        case .failure(let refusal):
            upload.refused = true
            return queue(context.response(for: refusal), on: connection)
        case .success(let fields):
            upload.headerFields = fields
        }
        if let refusal = refuseFraming(upload.headerFields, context) {
            upload.refused = true
            return queue(refusal, on: connection)
        }
        if context.forwarding {
            switch forwardedURL(connection, upload.rawURI) {
            case .failure(let refusal):
                upload.refused = true
                return queue(context.response(for: refusal), on: connection)
            case .success(let url): upload.forwardURL = url
            }
        }
        // A body of known length (or none) that has fully arrived is never judged slow.
        if upload.headerFields["Transfer-Encoding"] == nil {
            context.watch.bodyLength(connection, Int(upload.headerFields["Content-Length"] ?? "0") ?? 0)
        }
        return .YES
    }

    if uploadSize.pointee > 0 {
        let count = uploadSize.pointee
        uploadSize.pointee = 0
        context.watch.bodyReceived(connection, bytes: count)
        if upload.refused || upload.overLimit { return .YES }
        if upload.body.count + count > context.maxBodyBytes {
            // libmicrohttpd takes a response only once the body is in: drop the rest, answer 413 then.
            upload.overLimit = true
            upload.body = Data()
            return .YES
        }
        if let uploadData {
            upload.body.append(UnsafeRawPointer(uploadData).assumingMemoryBound(to: UInt8.self), count: count)
        }
        return .YES
    }
    if let pending = upload.pending {
        // Resumed: the deferred handler's answer is in (a call before it, if any, has nothing to do).
        guard let answer = pending.take() else { return .YES }
        return queue(context.sendable(answer), on: connection)
    }
    context.watch.requestReceived(connection)
    if upload.refused { return .YES }
    if upload.overLimit {
        upload.refused = true
        return queue(tooLarge(context), on: connection)
    }

    let request = HTTPRequest(
        method: HTTPMethod(String(decoding: methodBytes, as: UTF8.self)),
        url: upload.forwardURL ?? String(decoding: upload.rawURI, as: UTF8.self),
        headerFields: upload.headerFields,
        body: upload.body)
    upload.body = Data()
    upload.headerFields = HTTPFields()
    if let deferred = context.deferred {
        let pending = PendingAnswer()
        upload.pending = pending
        if context.deferredAnswers.begin(deferred, request, on: connection, into: pending) { return .YES }
        // The server is stopping or going offline: nothing may be suspended any more, so the connection is closed
        // unanswered, as a server that is down closes it (a client sends the request again, as it would then).
        upload.pending = nil
        return .NO
    }
    return queue(context.sendable(context.handler.handle(request)), on: connection)
}

/// The origin of a tunnelled connection, kept as the connection's socket context from open to close.
final class TunnelOrigin: Sendable {
    let origin: String
    /// The intercepted tunnel's TLS, when the server decrypts it itself.
    let interception: Interception?

    init(_ origin: String, interception: Interception? = nil) {
        self.origin = origin
        self.interception = interception
    }
}

/// The URL a forwarding server's handler gets: a tunnelled request's origin joined to its origin-form target;
/// a plain one's target as sent. HTTPS is only ever spoken inside a tunnel, and a tunnel carries origin-form requests
/// only (a `CONNECT` or an absolute URL inside one is refused, so a tunnel cannot lead anywhere else).
func forwardedURL(_ connection: OpaquePointer, _ target: [UInt8]) -> Result<String, RequestHeadRules.Refusal> {
    let text = String(decoding: target, as: UTF8.self)
    if let raw = conform_mhd_socket_context(connection) {
        let tunnel = Unmanaged<TunnelOrigin>.fromOpaque(raw).takeUnretainedValue()
        tunnel.interception?.requestArrived()
        guard target.first == UInt8(ascii: "/") else {
            return .failure(
                .badRequest(
                    "request target '\(text.prefix(200))' inside the tunnel to \(tunnel.origin) is not origin-form; "
                        + "send /path?query (a CONNECT or an absolute URL inside a tunnel is not followed)"))
        }
        return .success(tunnel.origin + text)
    }
    if text.prefix(8).lowercased() == "https://" {
        return .failure(
            .badRequest(
                "request target '\(text.prefix(200))' asks for HTTPS in plain text; open it with CONNECT "
                    + "(set the proxy for HTTPS too)"))
    }
    return .success(text)
}

private func tooLarge(_ context: ServerContext) -> HTTPResponse {
    context.handler.refusal(
        status: 413, code: "PAYLOAD_TOO_LARGE",
        message: "request body larger than the server limit of \(context.maxBodyBytes) bytes")
}

/// Checks the method, the request target and every header field (``RequestHeadRules``), the number of fields, the
/// size of the head and the bytes libmicrohttpd would drop (``RequestHeadLayout``), and returns the fields in
/// arrival order with their raw names.
func readHead(
    _ connection: OpaquePointer, method: UnsafeRawBufferPointer, version: UnsafePointer<CChar>?, _ upload: Upload,
    _ context: ServerContext
) -> Result<HTTPFields, RequestHeadRules.Refusal> {
    let target = upload.rawURI
    if let refusal = RequestHeadRules.checkMethod(method) { return .failure(refusal) }
    if let refusal = RequestHeadRules.checkTarget(target) { return .failure(refusal) }
    var collector = HeadCollector(
        maxFields: context.maxHeaderFields, maxBytes: context.maxHeaderBytes,
        bytes: method.count + target.count + 12)
    // Room for a usual head at once, not grown field by field.
    collector.fields.reserveCapacity(12)
    collector.places.reserveCapacity(12)
    withUnsafeMutablePointer(to: &collector) { pointer in
        _ = MHD_get_connection_values_n(connection, MHD_ValueKind.HEADER_KIND, conformServerCollectHeader, pointer)
    }
    if let refusal = collector.refusal { return .failure(refusal) }

    var layout = RequestHeadLayout(
        start: Int(bitPattern: method.baseAddress), count: conform_mhd_header_size(connection))
    layout.pieces.reserveCapacity(3 + 2 * collector.places.count)
    layout.pieces.append(.init(address: layout.start, count: method.count, kind: .method))
    layout.pieces.append(.init(address: upload.rawURIAddress, count: target.count, kind: .target))
    layout.pieces.append(
        .init(address: Int(bitPattern: version), count: version.map { strlen($0) } ?? 0, kind: .version))
    for (index, place) in collector.places.enumerated() {
        layout.pieces.append(.init(address: place.name, count: place.nameCount, kind: .fieldName(index)))
        layout.pieces.append(.init(address: place.value, count: place.valueCount, kind: .fieldValue(index)))
    }
    if let refusal = layout.firstHidden(fieldName: { collector.fields[$0].name }) { return .failure(refusal) }
    return .success(HTTPFields(collector.fields))
}

/// The header fields gathered so far, or why the head is refused.
struct HeadCollector {
    let maxFields: Int
    let maxBytes: Int
    var bytes: Int
    var fields: [HTTPFields.Field] = []
    /// Where each field's name and value lie in libmicrohttpd's buffer, for ``RequestHeadLayout``.
    var places: [(name: Int, nameCount: Int, value: Int, valueCount: Int)] = []
    var refusal: RequestHeadRules.Refusal?

    /// Adds one field; `false` once the head is refused, which ends the walk.
    mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Bool {
        if fields.count >= maxFields {
            refusal = RequestHeadRules.tooManyFields(limit: maxFields)
            return false
        }
        bytes += name.count + value.count + 4
        if bytes > maxBytes {
            refusal = RequestHeadRules.Refusal(
                status: 431, code: "REQUEST_HEADER_FIELDS_TOO_LARGE",
                message: "request head is larger than the server limit of \(maxBytes) bytes; send fewer or "
                    + "shorter header fields")
            return false
        }
        if let problem = RequestHeadRules.checkField(name: name, value: value) {
            refusal = problem
            return false
        }
        fields.append(
            HTTPFields.Field(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        )
        places.append((Int(bitPattern: name.baseAddress), name.count, Int(bitPattern: value.baseAddress), value.count))
        return true
    }
}

/// A refusal for framing the server will not pass on: several or malformed `Content-Length`, or one beside
/// `Transfer-Encoding` (the ways to smuggle a second request), or a declared body over the limit; `nil` when the
/// request may go on.
func refuseFraming(_ headerFields: HTTPFields, _ context: ServerContext) -> HTTPResponse? {
    let lengths = headerFields.values(for: "Content-Length")
    guard !lengths.isEmpty else { return nil }
    let badRequest = { (message: String) in
        context.handler.refusal(status: 400, code: "BAD_REQUEST", message: message)
    }
    if lengths.count > 1 {
        return badRequest("request has \(lengths.count) Content-Length headers; send exactly one")
    }
    if headerFields.contains("Transfer-Encoding") {
        return badRequest("request has both Content-Length and Transfer-Encoding; send one of them")
    }
    // The usual value is bare digits: no trimming through Foundation on every request.
    let isDigits = { (text: String) in !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) } }
    // Bare digits (the usual value) have nothing to trim.
    let text = lengths[0].utf8.allSatisfy { (0x30...0x39).contains($0) } ? lengths[0] : lengths[0].trimmingWhitespace
    guard isDigits(text) else {
        return badRequest("Content-Length '\(lengths[0].prefix(40))' is not a number of bytes")
    }
    // Bare ASCII digits: their byte count is their character count, without walking graphemes.
    if text.utf8.count > 18 || Int(text) ?? .max > context.maxBodyBytes { return tooLarge(context) }
    return nil
}

private func conformServerCollectHeader(
    _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?, _ keySize: Int,
    _ value: UnsafePointer<CChar>?, _ valueSize: Int
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let collector = cls.assumingMemoryBound(to: HeadCollector.self)
    let name = UnsafeRawBufferPointer(start: key, count: keySize)
    let text = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
    return collector.pointee.add(name: name, value: text) ? .YES : .NO
}
