import ConformCore
import ConformCurl
import ConformMobileMessaging
import ConformReference
import ConformTraffic
import Foundation

/// Generates recordings for the replay benchmark and turns a recording into a wrk script.
enum ReplayBenchmark {
    static let usage = """
        usage: conform-bench-replay generate DIR --devices D --per-device K [--target URL] [--no-redact]
               conform-bench-replay wrk-script RECORDING OUT.lua
               conform-bench-replay requests RECORDING OUT

        """

    static func main(_ args: [String]) async -> Int32 {
        let rest = Array(args.dropFirst())
        do {
            switch rest.first {
            case "generate": return try await generate(Array(rest.dropFirst()))
            case "wrk-script": return try wrkScript(Array(rest.dropFirst()))
            case "requests": return try requestsFile(Array(rest.dropFirst()))
            default:
                FileHandle.standardError.write(Data(usage.utf8))
                return 64
            }
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            return 2
        }
    }

    static func option(_ args: [String], _ name: String) -> String? {
        guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
        return args[i + 1]
    }

    /// Records `devices × perDevice` exchanges, round robin over the devices, so flows interleave as in real traffic.
    ///
    /// Each device registers (M1), personalizes (M4), then alternates reading (M7) and updating (M8) its user,
    /// in both SDK dialects. Without `--target` the in-process reference answers; with it, a served one.
    /// `--no-redact` skips redaction (which costs more than the reference itself) for large recordings.
    static func generate(_ args: [String]) async throws -> Int32 {
        guard let dir = args.first, !dir.hasPrefix("--"), let devices = option(args, "--devices").flatMap(Int.init),
            let perDevice = option(args, "--per-device").flatMap(Int.init), devices > 0, perDevice >= 2
        else {
            FileHandle.standardError.write(Data(usage.utf8))
            return 64
        }
        let target = option(args, "--target")
        let transport: any Transport =
            target == nil ? InProcessTransport(ReferenceImplementation()) : CurlTransport(timeout: .seconds(10))
        let base = target.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? "http://mobile.conform.invalid"
        // The protocol's redaction, as `conform record` applies it: the reference's documented credentials are public.
        let redaction =
            args.contains("--no-redact") ? RedactionPolicy.disabled : RedactionPolicy(profile: .mobileMessaging)
        let writer = try RecordingWriter(directory: dir, profile: .mobileMessaging, redaction: redaction)
        var ids = [String](repeating: "", count: devices)
        let clock = ContinuousClock()
        let start = clock.now
        for round in 0..<perDevice {
            for device in 0..<devices {
                let request = Self.request(round: round, device: device, pushRegId: ids[device], base: base)
                let started = Date()
                let response = try await transport.send(request)
                guard response.status.rawValue == 200 else {
                    throw BenchFailure("\(request.method) \(request.url) answered \(response.status.rawValue)")
                }
                if round == 0 {
                    guard let id = (try? JSONValue.parse(response.body))?["pushRegId"]?.stringValue else {
                        throw BenchFailure("registration answered without pushRegId")
                    }
                    ids[device] = id
                }
                var recorded = response
                recorded.timing = nil
                try writer.append(
                    upstream: MobileMessaging.mobile.name, request: request, response: recorded, startedAt: started,
                    durationMs: Date().timeIntervalSince(started) * 1000)
            }
        }
        writer.close()
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(String(format: "generated %d exchanges (%d devices) in %.1f s", devices * perDevice, devices, seconds))
        return 0
    }

    static func request(round: Int, device: Int, pushRegId: String, base: String) -> HTTPRequest {
        let android = device % 2 == 0
        var headers = HTTPFields([
            .init(name: "Authorization", value: "App conform-app-code"),
            .init(
                name: "User-Agent",
                value: android
                    ? "Infobip Mobile API Client/15.1.0(Android;14;arm64-v8a;Pixel 8;Google;Shop;3.2.0;Pixel 8;;;;;;)"
                    : "MobileMessaging/15.5.2(iOS;17.4;;iPhone15,2;;Shop;3.2.0;iPhone;;;)"),
            .init(name: "Accept", value: "application/json"),
        ])
        let yes = android ? "true" : "1"
        let no = android ? "false" : "0"
        if round > 0 { headers.append(name: "pushregistrationid", value: pushRegId) }
        func json(_ method: HTTPMethod, _ path: String, _ body: String) -> HTTPRequest {
            var h = headers
            h.append(name: "Content-Type", value: "application/json")
            return HTTPRequest(method: method, url: base + path, headerFields: h, body: Data(body.utf8))
        }
        let instance = "/mobile/1/appinstance/\(pushRegId)"
        switch round {
        case 0:
            return json(
                .post, "/mobile/1/appinstance?ri=\(yes)",
                #"{"pushServiceToken":"bench-token-\#(device)","pushServiceType":"\#(android ? "Firebase" : "APNS")","notificationsEnabled":true,"os":"\#(android ? "Android" : "iOS")"}"#
            )
        case 1:
            return json(
                .post, "\(instance)/personalize?forceDepersonalize=\(no)&keepAsLead=\(no)&setDeviceAsPrimary=\(yes)",
                #"{"userIdentity":{"externalUserId":"bench-user-\#(device)","emails":[{"address":"bench-\#(device)@mail.example.org"}]},"userAttributes":{"firstName":"Ana"}}"#
            )
        case let r where r % 2 == 0:
            return HTTPRequest(method: .get, url: base + "\(instance)/user?ri=\(yes)", headerFields: headers)
        default:
            let body = #"{"customAttributes":{"visits":\#(round)}}"#
            if android {
                var request = json(.post, "\(instance)/user", body)
                request.headerFields.append(name: "X-HTTP-Method-Override", value: "PATCH")
                return request
            }
            return json(.patch, "\(instance)/user", body)
        }
    }

    /// Writes a wrk Lua script that cycles through the recording's requests (origin-form, as recorded).
    static func wrkScript(_ args: [String]) throws -> Int32 {
        var lua = "-- Requests of \(args.first ?? ""), formatted once per thread, sent in a cycle.\nlocal raw = {\n"
        return try writeRequests(args) { request, fields in
            let headers = fields.map { "[\(quoted($0.name))]=\(quoted($0.value))," }.joined()
            lua += "{\(quoted(request.method.rawValue)),\(quoted(request.target)),{\(headers)},"
            lua += request.body.isEmpty ? "nil},\n" : "\(quoted(String(decoding: request.body, as: UTF8.self)))},\n"
        } finish: {
            lua += """
                }
                local requests = {}
                local index = 0
                init = function(args)
                  for i, r in ipairs(raw) do requests[i] = wrk.format(r[1], r[2], r[3], r[4]) end
                  index = math.random(#requests) - 1
                end
                request = function()
                  index = index % #requests + 1
                  return requests[index]
                end

                """
            return Data(lua.utf8)
        }
    }

    /// Writes the recording's requests for bench/replay/null-replay.c, each as `METHOD TARGET`, its header fields
    /// (`Name: value`, without Host and Content-Length) one a line, an empty line, the body's length in bytes on a
    /// line, then the body and a newline.
    static func requestsFile(_ args: [String]) throws -> Int32 {
        var out = Data()
        return try writeRequests(args) { request, fields in
            var head = "\(request.method.rawValue) \(request.target)\n"
            for field in fields { head += "\(field.name): \(field.value)\n" }
            head += "\n\(request.body.count)\n"
            out.append(Data(head.utf8))
            out.append(request.body)
            out.append(0x0A)
        } finish: {
            out
        }
    }

    /// `RECORDING OUT`: hands each recorded request to `add` with its header fields but Host and Content-Length
    /// (which each client sets itself), then writes what `finish` makes to OUT.
    static func writeRequests(
        _ args: [String], add: (HTTPRequest, [HTTPFields.Field]) -> Void, finish: () -> Data
    ) throws -> Int32 {
        guard args.count == 2 else {
            FileHandle.standardError.write(Data(usage.utf8))
            return 64
        }
        let reader = try RecordingReader(path: args[0])
        var count = 0
        while let exchange = try reader.next() {
            let request = exchange.request
            add(
                request,
                request.headerFields.fields.filter { !["host", "content-length"].contains($0.name.lowercased()) })
            count += 1
        }
        try finish().write(to: URL(fileURLWithPath: args[1]))
        print("wrote \(count) requests to \(args[1])")
        return 0
    }

    /// A Lua string literal: printable ASCII kept, everything else as decimal escapes.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += "\\" + String(UnicodeScalar(byte))
            case 0x20..<0x7F: out.append(Character(UnicodeScalar(byte)))
            default: out += "\\\(byte)"
            }
        }
        return out + "\""
    }
}

struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
