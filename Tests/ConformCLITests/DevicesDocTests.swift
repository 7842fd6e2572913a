import ConformTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every command of `docs/devices.md` (its `$ ` lines) either runs here, in the page's order, or is listed as one
/// this machine cannot run, with the reason.
@Suite(.enabled(if: Tool.has("curl") && Tool.has("openssl"), "needs curl and openssl"))
struct DevicesDocTests {
    static let page = TestPaths.root.appendingPathComponent("docs/devices.md").path

    /// The commands run here, as the page writes them.
    static let runHere = [
        "conform ca",
        "conform serve --tls --port 8443",
        "conform record --forward --allow-host localhost:8443 --listen 127.0.0.1:8080 --cacert "
            + "~/.config/conform/ca/conform-ca.pem --out recorded",
        "curl --proxy http://127.0.0.1:8080 --cacert ~/.config/conform/ca/conform-ca.pem -H 'Authorization: App "
            + "conform-app-code' https://localhost:8443/mobile/1/baseurl",
        "curl --proxy http://127.0.0.1:8080 -H 'Content-Type: application/json' --data "
            + #"'{"event":"login","externalUserId":"ana"}' http://conform.invalid/_conform/events"#,
        "conform check recorded",
        "openssl x509 -subject_hash_old -noout -in ~/.config/conform/ca/conform-ca.pem",
        "keytool -importcert -noprompt -alias conform -storetype PKCS12 -storepass changeit -keystore "
            + "conform-truststore.p12 -file ~/.config/conform/ca/conform-ca.pem",
        #"certutil -d sql:$HOME/.pki/nssdb -A -t "C,," -n conform -i ~/.config/conform/ca/conform-ca.pem"#,
    ]

    /// The commands this machine cannot run, and why.
    static let elsewhere: [String: String] = [
        "conform record --forward --allow-host api.example.com --listen 0.0.0.0:8080 --out recorded":
            "listens on every interface, which tests never do; the same command runs above on 127.0.0.1",
        "adb reverse tcp:8080 tcp:8080": "needs an Android device",
        "adb shell settings put global http_proxy 127.0.0.1:8080": "needs an Android device",
        "adb shell settings put global http_proxy :0": "needs an Android device",
        "emulator -avd Pixel_7_API_34 -writable-system": "needs the Android emulator",
        "adb root": "needs an Android emulator",
        "adb remount": "needs an Android emulator",
        "adb push ~/.config/conform/ca/HASH.0 /system/etc/security/cacerts/": "needs an Android emulator",
        "adb shell chmod 644 /system/etc/security/cacerts/HASH.0": "needs an Android emulator",
        "adb reboot": "needs an Android emulator",
        "xcrun simctl keychain booted add-root-cert ~/.config/conform/ca/conform-ca.pem": "needs macOS and Xcode",
        "chromium --proxy-server=http://127.0.0.1:8080 --proxy-bypass-list='<-loopback>'":
            "opens a browser window; Playwright runs the same settings headless (ForwardRecordTests)",
    ]

    static func commands() throws -> [String] {
        try String(contentsOfFile: page, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("$ ") }.map { String($0.dropFirst(2)) }
    }

    @Test func everyCommandOfThePageRunsHereOrSaysWhyNot() throws {
        let commands = try Self.commands()
        for command in commands {
            #expect(
                Self.runHere.contains(command) != (Self.elsewhere[command] != nil),
                "\(command): in exactly one of runHere and elsewhere")
        }
        #expect(commands.filter { Self.runHere.contains($0) } == Self.runHere, "runHere in the page's order")
        for command in Self.elsewhere.keys { #expect(commands.contains(command), "\(command) is on the page") }
    }

    /// Runs the page's commands in its order, with the test's own ports (`0`, then the ones picked), its own
    /// configuration directory for `~/.config`, and its own `HOME` and working directory.
    @Test func thePagesCommandsRunAsWritten() async throws {
        let scratch = try Scratch("devicesdoc")
        let binary = TrafficCommandTests.root + "/.build/debug/conform"
        let environment = TLSCommandTests.environment(scratch).merging(["HOME": scratch.path("home")]) { $1 }
        try FileManager.default.createDirectory(
            atPath: scratch.path("home/.pki/nssdb"), withIntermediateDirectories: true)
        var ports: [String: String] = [:]
        var running: [ConformProcess] = []
        defer { for process in running { _ = try? process.interrupt() } }
        func substituted(_ command: String) -> String {
            var text = command.replacingOccurrences(of: "~/.config", with: scratch.path("config"))
                .replacingOccurrences(of: "$HOME", with: scratch.path("home"))
                .replacingOccurrences(of: " recorded", with: " " + scratch.path("recorded"))
            for (written, picked) in ports { text = text.replacingOccurrences(of: written, with: picked) }
            if text.hasPrefix("conform ") { text = binary + text.dropFirst("conform".count) }
            return text
        }
        func shell(_ command: String) async throws -> ChildProcess.Outcome {
            var env = ProcessInfo.processInfo.environment
            env.merge(environment) { $1 }
            return try await ChildProcess.output(
                "/bin/sh", ["-c", substituted(command)], environment: env, directory: scratch.url,
                separateStandardError: true)
        }
        for command in Self.runHere {
            switch command {
            case let serve where serve.hasPrefix("conform serve"):
                let args = substituted(serve).replacingOccurrences(of: "8443", with: "0").split(separator: " ")
                    .dropFirst().map(String.init)
                let process = try await offThePool {
                    try ConformProcess(
                        args, scratch: scratch, banner: "Serving the reference implementation on ",
                        environment: environment)
                }
                running.append(process)
                ports["8443"] = String(process.baseURL.split(separator: ":").last!)
            case let record where record.hasPrefix("conform record"):
                let args = substituted(record).replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:0")
                    .split(separator: " ").dropFirst().map(String.init)
                let process = try await offThePool {
                    try ConformProcess(
                        args, scratch: scratch, banner: "Recording as a forward proxy on ", environment: environment)
                }
                running.append(process)
                ports["8080"] = String(process.baseURL.split(separator: ":").last!)
            case "conform check recorded":
                let recorder = running.removeLast()
                let stopped = try await offThePool { try recorder.interrupt() }
                #expect(stopped.code == 0, "\(stopped.out)\(stopped.err)")
                #expect(stopped.out.contains("Recorded 1 exchange and 1 app event"), "\(stopped.out)")
                let checked = try await shell(command)
                // A base-URL call and an event show nothing of the flow, as the page says: never a pass.
                #expect(checked.status == 2, "\(checked.output)\(checked.errorOutput)")
                #expect(checked.output.hasSuffix("Result: CANNOT JUDGE\n"), "\(checked.output)")
                #expect(checked.output.contains("cannot judge: the traffic holds no registration, no user call"))
            case let curl where curl.hasPrefix("curl") && curl.hasSuffix("/baseurl"):
                let fetched = try await shell(command)
                #expect(fetched.output == #"{"baseUrl":"https://localhost:\#(ports["8443"]!)"}"#, "\(fetched.output)")
            case let curl where curl.hasPrefix("curl"):
                let posted = try await shell(command)
                #expect(posted.output.hasPrefix(#"{"recorded":[{"seq":2"#), "\(posted.output)\(posted.errorOutput)")
            case "conform ca":
                let made = try await shell(command)
                #expect(made.status == 0 && made.output.hasPrefix("Local CA: "), "\(made.output)")
            case let openssl where openssl.hasPrefix("openssl"):
                let hash = try await shell(command)
                let name = hash.output.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(name.count == 8 && name.allSatisfy(\.isHexDigit), "\(hash.output)")
                #expect(FileManager.default.fileExists(atPath: scratch.path("config/conform/ca/\(name).0")))
            case let keytool where keytool.hasPrefix("keytool"):
                guard Tool.has("keytool") else { continue }
                let imported = try await shell(command)
                #expect(imported.status == 0, "\(imported.output)\(imported.errorOutput)")
                #expect(FileManager.default.fileExists(atPath: scratch.path("conform-truststore.p12")))
            case let certutil where certutil.hasPrefix("certutil"):
                guard Tool.has("certutil") else { continue }
                let made = try await shell("certutil -d sql:$HOME/.pki/nssdb -N --empty-password")
                #expect(made.status == 0, "\(made.output)\(made.errorOutput)")
                let added = try await shell(command)
                #expect(added.status == 0, "\(added.output)\(added.errorOutput)")
                let listed = try await shell("certutil -d sql:$HOME/.pki/nssdb -L")
                #expect(listed.output.contains("conform"), "\(listed.output)")
            default:
                Issue.record("no way to run \(command)")
            }
        }
    }
}
