import ConformCrypto
import Foundation
import Testing

@testable import ConformServer

/// The leaves the forward proxy presents: one per host, made again after the renewal period, and none when no
/// certificate can be had.
@Suite struct ForwardCredentialsTests {
    @Test func aHostsCredentialIsKeptUntilItIsRenewed() throws {
        let authority = try CertificateAuthority.create()
        let leaves = LeafCache(authority: authority)
        let made = Counter()
        let credentials = ForwardCredentials(
            identity: { host in
                made.add()
                guard let name = ServerName(host), let leaf = try? leaves.leaf(for: [name]) else { return nil }
                return TLSIdentity(keyPEM: leaf.key.pem, certificatePEM: leaf.certificate.pem)
            }, renewal: .seconds(3600))
        let start = ContinuousClock.now
        let first = try #require(credentials.credential(for: "api.example.test", now: start))
        let again = try #require(credentials.credential(for: "api.example.test", now: start + .seconds(3599)))
        #expect(first === again)
        #expect(made.value == 1)
        let other = try #require(credentials.credential(for: "127.0.0.1", now: start))
        #expect(other !== first)
        let renewed = try #require(credentials.credential(for: "api.example.test", now: start + .seconds(3601)))
        #expect(renewed !== first)
        #expect(made.value == 3)
        // A name no certificate can carry gets none, and is asked again next time.
        #expect(credentials.credential(for: "bad name", now: start) == nil)
        #expect(credentials.credential(for: "bad name", now: start) == nil)
        #expect(made.value == 5)
    }

    @Test func aKeyOrChainGnuTLSCannotReadGivesNoCredential() {
        #expect(TLSCredential(TLSIdentity(keyPEM: "not a key", certificatePEM: "not a certificate")) == nil)
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func add() { lock.withLock { count += 1 } }
    }
}
