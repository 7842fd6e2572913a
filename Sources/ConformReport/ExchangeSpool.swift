import ConformCore
import Foundation
import Synchronization

/// A temporary file that holds the exchanges of a run's steps, so a long run keeps in memory only each step's
/// verdict and a file offset, and reporters read each exchange back when they render its step.
///
/// The file is created readable by its owner only and removed when the spool is released; it holds the exchanges
/// unmasked, as the run's memory would (reporters mask when they render).
public final class ExchangeSpool: Sendable {
    /// Where one step's exchange sits in the spool.
    public struct Ref: Sendable, Hashable {
        let spool: ExchangeSpool
        let offset: UInt64
        let length: Int

        public static func == (a: Ref, b: Ref) -> Bool { a.spool === b.spool && a.offset == b.offset }
        public func hash(into hasher: inout Hasher) {
            hasher.combine(ObjectIdentifier(spool))
            hasher.combine(offset)
        }
    }

    private struct State {
        var handle: FileHandle
        var end: UInt64 = 0
    }

    private let path: String
    private let state: Mutex<State>

    /// A spool in `directory` (the system's temporary directory by default).
    public init(directory: URL = FileManager.default.temporaryDirectory) throws {
        let url = directory.appendingPathComponent("conform-exchanges-\(UUID().uuidString).bin")
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
        path = url.path
        state = Mutex(State(handle: try FileHandle(forUpdating: url)))
    }

    deinit {
        state.withLock { try? $0.handle.close() }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Appends an exchange; `nil` when the spool cannot be written (the caller keeps the exchange in memory).
    public func append(request: HTTPRequest?, response: HTTPResponse?) -> Ref? {
        var writer = SpoolWriter()
        writer.request(request)
        writer.response(response)
        let data = writer.data
        return state.withLock { s -> Ref? in
            do {
                try s.handle.seek(toOffset: s.end)
                try s.handle.write(contentsOf: data)
            } catch {
                return nil
            }
            defer { s.end += UInt64(data.count) }
            return Ref(spool: self, offset: s.end, length: data.count)
        }
    }

    /// The exchange at `ref`; `(nil, nil)` when it cannot be read back.
    func load(_ ref: Ref) -> (HTTPRequest?, HTTPResponse?) {
        let data = state.withLock { s -> Data? in
            do {
                try s.handle.seek(toOffset: ref.offset)
                return try s.handle.read(upToCount: ref.length)
            } catch {
                return nil
            }
        }
        guard let data, data.count == ref.length else { return (nil, nil) }
        var reader = SpoolReader(data: data)
        return (reader.request(), reader.response())
    }
}

/// The spool's record: length-prefixed fields, a presence byte before each optional.
struct SpoolWriter {
    var data = Data()

    mutating func int(_ value: Int) {
        withUnsafeBytes(of: UInt64(truncatingIfNeeded: value).littleEndian) { data += $0 }
    }
    mutating func bytes(_ value: Data) {
        int(value.count)
        data += value
    }
    mutating func string(_ value: String) { bytes(Data(value.utf8)) }
    mutating func fields(_ fields: HTTPFields) {
        int(fields.count)
        for field in fields {
            string(field.name)
            string(field.value)
        }
    }
    /// The presence byte of an optional, then what `write` writes of it when it is there.
    mutating func optional<Value>(_ value: Value?, _ write: (inout SpoolWriter, Value) -> Void) {
        data.append(value == nil ? 0 : 1)
        if let value { write(&self, value) }
    }
    mutating func request(_ r: HTTPRequest?) {
        optional(r) { w, r in
            w.string(r.method.rawValue)
            w.string(r.url)
            w.fields(r.headerFields)
            w.bytes(r.body)
            w.optional(r.timeout) { w, timeout in
                w.int(Int(timeout.components.seconds))
                w.int(Int(timeout.components.attoseconds))
            }
        }
    }
    mutating func double(_ value: Double) { int(Int(bitPattern: UInt(value.bitPattern))) }
    mutating func response(_ r: HTTPResponse?) {
        optional(r) { w, r in
            w.int(r.status.code)
            w.fields(r.headerFields)
            w.bytes(r.body)
            w.optional(r.timing) { w, t in
                w.double(t.total)
                w.double(t.connect)
                w.double(t.firstByte)
                w.data.append(t.reusedConnection ? 1 : 0)
            }
            w.optional(r.httpVersion) { w, version in w.bytes(Data(version.utf8)) }
        }
    }
}

/// Reads what ``SpoolWriter`` wrote; stops at the first inconsistency (the record is then read as absent).
struct SpoolReader {
    let data: Data
    var at: Int

    init(data: Data) {
        self.data = data
        at = data.startIndex
    }

    mutating func int() -> Int? {
        guard data.endIndex - at >= 8 else { return nil }
        var value: UInt64 = 0
        for i in 0..<8 { value |= UInt64(data[at + i]) << (8 * UInt64(i)) }
        at += 8
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
    mutating func bytes() -> Data? {
        guard let n = int(), n <= data.endIndex - at else { return nil }
        defer { at += n }
        return data[at..<(at + n)]
    }
    mutating func string() -> String? { bytes().map { String(decoding: $0, as: UTF8.self) } }
    mutating func fields() -> HTTPFields? {
        guard let n = int(), n <= data.endIndex - at else { return nil }
        var out = HTTPFields()
        for _ in 0..<n {
            guard let name = string(), let value = string() else { return nil }
            out.append(name: name, value: value)
        }
        return out
    }
    mutating func present() -> Bool {
        guard at < data.endIndex else { return false }
        defer { at += 1 }
        return data[at] == 1
    }
    mutating func double() -> Double? {
        guard data.endIndex - at >= 8 else { return nil }
        var bits: UInt64 = 0
        for i in 0..<8 { bits |= UInt64(data[at + i]) << (8 * UInt64(i)) }
        at += 8
        return Double(bitPattern: bits)
    }
    mutating func request() -> HTTPRequest? {
        guard present(), let method = string(), let url = string(), let fields = fields(), let body = bytes() else {
            return nil
        }
        var timeout: Duration?
        if present() {
            guard let seconds = int(), let attoseconds = int() else { return nil }
            timeout = Duration(secondsComponent: Int64(seconds), attosecondsComponent: Int64(attoseconds))
        }
        return HTTPRequest(
            method: HTTPMethod(method), url: url, headerFields: fields, body: Data(body), timeout: timeout)
    }
    mutating func response() -> HTTPResponse? {
        guard present(), let status = int(), let fields = fields(), let body = bytes() else { return nil }
        var timing: HTTPTiming?
        if present() {
            guard let total = double(), let connect = double(), let firstByte = double() else { return nil }
            timing = HTTPTiming(total: total, connect: connect, firstByte: firstByte, reusedConnection: present())
        }
        var response = HTTPResponse(status: HTTPStatus(status), headerFields: fields, body: Data(body), timing: timing)
        if present() {
            guard let version = string() else { return nil }
            response.httpVersion = version
        }
        return response
    }
}
