import ConformCrypto
import ConformTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

struct CertificateAuthorityStoreTests {
    @Test func theCAIsMadeOnceWithAPrivateKeyFileAndLoadedAfterwards() throws {
        let scratch = try Scratch("store")
        let store = CertificateAuthorityStore(directory: scratch.path("conform/ca"))
        #expect(try store.load() == nil)
        let (made, created) = try store.loadOrCreate()
        #expect(created)
        var info = stat()
        #expect(stat(store.keyPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(stat(scratch.path("conform"), &info) == 0)
        #expect(info.st_mode & 0o077 == 0)
        let (loaded, createdAgain) = try store.loadOrCreate()
        #expect(!createdAgain)
        #expect(loaded.certificate.sha256Fingerprint == made.certificate.sha256Fingerprint)
        let key = try String(contentsOfFile: store.keyPath, encoding: .utf8)
        #expect(key.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        // No staging directory is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("conform")) == ["ca"])
    }

    @Test func resetMakesANewCA() throws {
        let scratch = try Scratch("reset")
        let store = CertificateAuthorityStore(directory: scratch.path("ca"))
        let old = try store.loadOrCreate().authority
        let new = try store.reset()
        #expect(new.certificate.sha256Fingerprint != old.certificate.sha256Fingerprint)
        #expect(try store.load()?.certificate.sha256Fingerprint == new.certificate.sha256Fingerprint)
    }

    @Test func aKeyOthersMayReadIsRefusedWithTheFix() throws {
        let scratch = try Scratch("mode")
        let store = CertificateAuthorityStore(directory: scratch.path("ca"))
        _ = try store.loadOrCreate()
        #expect(chmod(store.keyPath, 0o644) == 0)
        #expect {
            _ = try store.load()
        } throws: { error in
            "\(error)" == "\(store.keyPath) may be read by others (mode 644); run 'chmod 600 \(store.keyPath)', "
                + "or 'conform ca --reset' if others may have read it"
        }
    }

    @Test func aKeyThatIsASymbolicLinkIsNotFollowed() throws {
        let scratch = try Scratch("link")
        let store = CertificateAuthorityStore(directory: scratch.path("ca"))
        _ = try store.loadOrCreate()
        try FileManager.default.moveItem(atPath: store.keyPath, toPath: scratch.path("elsewhere.pem"))
        try FileManager.default.createSymbolicLink(
            atPath: store.keyPath, withDestinationPath: scratch.path("elsewhere.pem"))
        #expect(throws: TLSError.self) { _ = try store.load() }
    }

    @Test func theDefaultDirectoryFollowsXDG() {
        #expect(
            CertificateAuthorityStore.defaultDirectory(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"])
                == "/x/conform/ca")
        #expect(CertificateAuthorityStore.defaultDirectory(environment: ["HOME": "/h"]) == "/h/.config/conform/ca")
        #expect(CertificateAuthorityStore.defaultDirectory(environment: ["XDG_CONFIG_HOME": "relative"]) == nil)
    }
}

@Suite(.enabled(if: Tool.has("openssl") && Tool.has("python3"), "needs openssl and python3"))
struct CertificateExportsTests {
    @Test func everyExportHoldsTheCACertificateAndNoKey() async throws {
        let scratch = try Scratch("exports")
        let ca = try CertificateAuthority.create()
        let files = try CertificateExports.write(ca.certificate, to: scratch.path("out"))
        let names = files.map { ($0.path as NSString).lastPathComponent }
        #expect(
            names == [
                "conform-ca.pem", "conform-ca.cer", ca.certificate.subjectHashOld + ".0", "conform-ca.mobileconfig",
            ])
        let openssl = Tool.path("openssl")!
        let der = try await ChildProcess.output(
            openssl, ["x509", "-inform", "DER", "-in", files[1].path, "-noout", "-fingerprint", "-sha256"])
        #expect(der.output == "sha256 Fingerprint=\(ca.certificate.sha256Fingerprint)\n")
        let hashed = try await ChildProcess.output(
            openssl, ["x509", "-in", files[2].path, "-noout", "-subject_hash_old"])
        #expect(hashed.output == ca.certificate.subjectHashOld + "\n")
        for file in files {
            let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: file.path)), as: UTF8.self)
            #expect(!text.contains("PRIVATE KEY"))
        }
        // The profile is a property list whose root payload is the DER certificate.
        let script = """
            import plistlib, sys, hashlib
            p = plistlib.load(open(sys.argv[1], 'rb'))
            c = p['PayloadContent'][0]
            print(p['PayloadType'], c['PayloadType'], hashlib.sha256(c['PayloadContent']).hexdigest())
            """
        let plist = try await ChildProcess.output(Tool.path("python3")!, ["-c", script, files[3].path])
        let digest = ca.certificate.sha256Fingerprint.replacingOccurrences(of: ":", with: "").lowercased()
        #expect(plist.output == "Configuration com.apple.security.root \(digest)\n")
        #expect(CertificateExports.mobileConfig(ca.certificate) == CertificateExports.mobileConfig(ca.certificate))
    }
}
