import ConformCrypto
import ConformTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The local CA and its leaves, checked by OpenSSL's own command line tool.
@Suite(.enabled(if: Tool.has("openssl"), "needs openssl"))
struct CertificateAuthorityTests {
    private func openssl(_ arguments: [String]) async throws -> ChildProcess.Outcome {
        try await ChildProcess.output(Tool.path("openssl")!, arguments)
    }

    /// The value line under the extension header `header` in `openssl x509 -text` output, trimmed; `nil` without it.
    static func extensionValue(_ header: String, in text: String) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard let index = lines.firstIndex(of: header), index + 1 < lines.count else { return nil }
        return lines[index + 1]
    }

    @Test func theCAIsACertificateAuthorityThatOnlySignsCertificates() async throws {
        let scratch = try Scratch("ca")
        let ca = try CertificateAuthority.create()
        let path = scratch.path("ca.pem")
        try ca.certificate.pem.write(toFile: path, atomically: true, encoding: .utf8)
        let text = try await openssl(["x509", "-in", path, "-noout", "-text"])
        #expect(text.status == 0)
        // Exactly what docs/tls.md says: critical CA:TRUE with path length 0, critical key usage of a CA only.
        #expect(Self.extensionValue("X509v3 Basic Constraints: critical", in: text.output) == "CA:TRUE, pathlen:0")
        #expect(Self.extensionValue("X509v3 Key Usage: critical", in: text.output) == "Certificate Sign, CRL Sign")
        #expect(!text.output.contains("Extended Key Usage"))
        #expect(text.output.contains("Subject: O = Conform, CN = Conform local CA "))
        // Self-signed: it verifies against itself.
        let verify = try await openssl(["verify", "-CAfile", path, path])
        #expect(verify.output == "\(path): OK\n")
        let fingerprint = try await openssl(["x509", "-in", path, "-noout", "-fingerprint", "-sha256"])
        #expect(fingerprint.output == "sha256 Fingerprint=\(ca.certificate.sha256Fingerprint)\n")
        let hash = try await openssl(["x509", "-in", path, "-noout", "-subject_hash_old"])
        #expect(hash.output == ca.certificate.subjectHashOld + "\n")
        #expect(ca.certificate.subjectHashOld.count == 8)
    }

    @Test func aLeafVerifiesAgainstTheCAWithItsNamesAsSubjectAlternativeNames() async throws {
        let scratch = try Scratch("leaf")
        let ca = try CertificateAuthority.create()
        let names = ["api.example.com", "127.0.0.1", "[::1]", "LOCALHOST."].compactMap(ServerName.init)
        #expect(names.count == 4)
        let now = Date()
        let leaf = try ca.issue(for: names, now: now)
        let caPath = scratch.path("ca.pem")
        let leafPath = scratch.path("leaf.pem")
        try ca.certificate.pem.write(toFile: caPath, atomically: true, encoding: .utf8)
        try leaf.certificate.pem.write(toFile: leafPath, atomically: true, encoding: .utf8)
        for name in ["api.example.com", "localhost"] {
            let verify = try await openssl(
                ["verify", "-CAfile", caPath, "-purpose", "sslserver", "-verify_hostname", name, leafPath])
            #expect(verify.output == "\(leafPath): OK\n", "\(name)")
        }
        for ip in ["127.0.0.1", "::1"] {
            let verify = try await openssl(["verify", "-CAfile", caPath, "-verify_ip", ip, leafPath])
            #expect(verify.output == "\(leafPath): OK\n", "\(ip)")
        }
        let other = try await openssl(["verify", "-CAfile", caPath, "-verify_hostname", "other.example.com", leafPath])
        #expect(other.status != 0)
        let text = try await openssl(["x509", "-in", leafPath, "-noout", "-text"])
        #expect(
            text.output.contains("DNS:api.example.com, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:localhost")
        )
        #expect(Self.extensionValue("X509v3 Basic Constraints: critical", in: text.output) == "CA:FALSE")
        #expect(Self.extensionValue("X509v3 Key Usage: critical", in: text.output) == "Digital Signature")
        #expect(Self.extensionValue("X509v3 Extended Key Usage:", in: text.output) == "TLS Web Server Authentication")
        #expect(text.output.contains("Subject: O = Conform, CN = api.example.com"))
        // Short validity: expired in eight days, not in six.
        let inSixDays = try await openssl(["x509", "-in", leafPath, "-noout", "-checkend", "\(6 * 86_400)"])
        #expect(inSixDays.status == 0)
        let inEightDays = try await openssl(["x509", "-in", leafPath, "-noout", "-checkend", "\(8 * 86_400)"])
        #expect(inEightDays.status == 1)
        #expect(leaf.certificate.matches(leaf.key))
        #expect(!leaf.certificate.matches(ca.key))
    }

    @Test func hostileNamesAreRefused() {
        for bad in [
            "", "a,DNS:evil.com", "evil.com\u{0}", "a..b", "ex ample.com", "*.com", "a.*.com",
            String(repeating: "a", count: 64) + ".com", "例え.jp", "IP:1.2.3.4", "x.com/path",
        ] {
            #expect(ServerName(bad) == nil, "\(bad)")
        }
        #expect(ServerName("*.example.com")?.kind == .dns)
        #expect(ServerName("10.0.2.2")?.kind == .ip)
        #expect(ServerName("::ffff:10.0.0.1")?.text == "::ffff:10.0.0.1")
        #expect(ServerName("Mobile.Example.COM.")?.text == "mobile.example.com")
    }

    @Test func theCacheKeepsALeafPerNameSetAndIsBounded() throws {
        let ca = try CertificateAuthority.create()
        let cache = LeafCache(authority: ca, capacity: 2)
        let a = [ServerName("a.example")!]
        let first = try cache.leaf(for: a)
        let again = try cache.leaf(for: a)
        #expect(first.certificate === again.certificate)
        #expect(cache.issuedCount == 1)
        _ = try cache.leaf(for: [ServerName("b.example")!])
        _ = try cache.leaf(for: [ServerName("c.example")!])
        #expect(cache.count == 2)
        #expect(cache.issuedCount == 3)
        // The least recently used (a) went first.
        let reissued = try cache.leaf(for: a)
        #expect(reissued.certificate !== first.certificate)
        #expect(cache.issuedCount == 4)
    }

    @Test func aLeafCloseToItsEndIsIssuedAgain() throws {
        let ca = try CertificateAuthority.create()
        let clock = TestClock(Date())
        let cache = LeafCache(authority: ca, now: { clock.now })
        let name = [ServerName("a.example")!]
        let first = try cache.leaf(for: name)
        clock.advance(CertificateAuthority.leafValidity - 3600)
        let second = try cache.leaf(for: name)
        #expect(second.certificate !== first.certificate)
        #expect(second.notAfter > first.notAfter)
    }
}

/// A clock a test moves by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ start: Date) { current = start }
    var now: Date { lock.withLock { current } }
    func advance(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
}
