import ConformCore
import ConformDiagnostics
import ConformProxy
import ConformReference
import ConformReport
import ConformServer
import ConformTraffic
import ConformTransports
import Dispatch
import Foundation
import Synchronization

/// `conform serve`: the reference implementation over HTTP/1.1 until interrupted.
enum ServeCommand {
    static func main(_ parsed: Arguments, io: CommandIO) async throws(UsageError) -> Int32 {
        guard parsed.positionals.isEmpty else {
            throw UsageError(message: "unexpected argument '\(parsed.positionals[0])'", subcommand: "serve")
        }
        let host = parsed.value("--host") ?? "127.0.0.1"
        let port = try parsed.port("--port") ?? 0
        let publicOrigin = try publicOrigin(parsed)
        guard let tls = try ListenerTLS.resolve(parsed, host: host, subcommand: "serve", io: io) else {
            return ConformCommand.ExitCode.cannotRun
        }
        let faults = try Target.faults(parsed.values("--fault"), subcommand: "serve")
        let variants = try Target.variants(parsed.values("--variant"), subcommand: "serve")
        var limits = try parsed.serverLimits()
        // Under latency every request holds its server thread for the delay: a thread per connection keeps
        // concurrent clients from waiting for each other.
        limits.threadPerConnection = variants.contains(.latency)
        if let n = try parsed.integer("--threads") {
            limits.threads = n
            limits.threadPerConnection = false
        }
        var configuration = ReferenceConfiguration.default
        if let path = parsed.value("--config") {
            do {
                configuration = try ReferenceConfiguration.load(contentsOf: URL(fileURLWithPath: io.resolve(path)))
            } catch {
                let source = (try? String(contentsOfFile: io.resolve(path), encoding: .utf8)) ?? ""
                io.report(error.diagnostics, source: source)
                return ConformCommand.ExitCode.cannotRun
            }
        }
        let storage = try parsed.size("--max-stored").map(StorageLimit.init(bytes:)) ?? .default
        let reference = ReferenceImplementation(
            configuration: configuration, faults: Set(faults), variants: Set(variants), storageLimit: storage)
        let reports = try ProxySessions.reports(parsed, subcommand: "serve", io: io)
        let codes = try ProxySessions.codes(parsed, subcommand: "serve")
        if !parsed.has("--check"), !parsed.values("--client-faults").isEmpty || parsed.has("--seed") {
            throw UsageError(
                message: "--client-faults and --seed need --check: the faults are injected for an app under test, "
                    + "and recorded",
                subcommand: "serve")
        }
        if parsed.has("--check") {
            let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "-")
            // The in-process reference gets each request under the origin the app reached (or --public-url), so
            // what it announces (M12's base URL) is an origin the app can follow.
            // The faults sit below the recording: what they answer is what the app gets and the recording holds.
            let served = try ClientFaultsOption.wrap(
                reference, parsed, holdLimit: ProxyLimits.default.requestDeadline + .seconds(1), subcommand: "serve",
                io: io)
            return await ProxySessions.run(
                upstreams: ["*": "http://reference.conform.invalid"], transport: served,
                out: parsed.value("--out") ?? "recordings/serve-check-\(stamp)",
                redaction: RedactionPolicy(profile: ConformCommand.profile), append: false,
                listen: (host, port), check: true, reports: reports, codes: codes,
                banner: "Checking an app against the reference implementation", tls: tls,
                origins: ReachedOrigin(publicOrigin: publicOrigin), io: io)
        }
        let server: Listeners
        do {
            server = try Listeners.start(host: host, port: port, limits: limits, tls: tls) { scheme in
                OriginHandler(
                    reference, scheme: scheme, publicOrigin: publicOrigin,
                    trustForwarded: parsed.has("--trust-forwarded"))
            }
        } catch {
            io.report(Listeners.cannotListen(host: host, port: port, option: "--port", error))
            return ConformCommand.ExitCode.cannotRun
        }
        io.out.write("Serving the reference implementation on \(server.baseURL)\n")
        server.announce(io)
        // The reference's documented codes are public; any other is masked as reports mask credentials.
        let publicValues = Set(ConformCommand.profile.redaction.publicValues)
        let lines = reference.servedLines { publicValues.contains($0) ? $0 : SecretMasker.masked($0) }
        for line in lines { io.out.write(line + "\n") }
        io.out.write("Press Ctrl-C to stop.\n")
        await Termination.wait()
        server.stop()
        return 0
    }
}
