import ConformBundles
import ConformTestSupport
import ConformTraffic
import Foundation
import Testing

/// `run --bundle DIR --sign KEY` signs the bundle's manifest with Ed25519 and `verify --key PUB` checks it and names
/// the key; a wrong key or a manifest changed after signing is TAMPERED, `--key` with an unsigned bundle is not
/// verified; key files that are not Ed25519 PEM keys are refused by name; signatures made by the `openssl` CLI
/// verify, and Conform's verify with `openssl pkeyutl -verify`. Keys are made by `openssl` in the test.
@Suite(.serialized, .enabled(if: Tool.has("openssl") && Tool.has("sha256sum"), "needs openssl and sha256sum"))
struct BundleSignatureTests {
    /// Runs `command` with `sh -c` in `directory`; its status and output.
    func shell(_ command: String, in directory: String) async throws -> ChildProcess.Outcome {
        try await ChildProcess.output(
            "/bin/sh", ["-c", command], directory: URL(fileURLWithPath: directory), separateStandardError: true)
    }

    /// A scratch directory with an Ed25519 key pair (`key.pem`, `pub.pem`), another (`other.pem`,
    /// `other-pub.pem`), and the fingerprint of `pub.pem` as `sha256sum` of its DER SubjectPublicKeyInfo gives it.
    func keys() async throws -> (scratch: Scratch, fingerprint: String) {
        let scratch = try Scratch("sign")
        let made = try await shell(
            "openssl genpkey -algorithm ed25519 -out key.pem && openssl pkey -in key.pem -pubout -out pub.pem"
                + " && openssl genpkey -algorithm ed25519 -out other.pem"
                + " && openssl pkey -in other.pem -pubout -out other-pub.pem",
            in: scratch.url.path)
        try #require(made.status == 0, "\(made.errorOutput)")
        let digest = try await shell("openssl pkey -pubin -in pub.pem -outform DER | sha256sum", in: scratch.url.path)
        let hex = String(digest.output.prefix(64))
        try #require(hex.count == 64, "\(digest.output)")
        return (scratch, "SHA256:" + hex)
    }

    /// A bundle of a run of one suite against the reference, signed with `sign` when given.
    func bundle(_ scratch: Scratch, name: String = "bundle", sign: String? = nil) async throws -> String {
        let dir = scratch.path(name)
        let run = await conformInProcess(
            ["run", "--bundle", dir, "--no-color", "suites/01-registration.yaml"] + (sign.map { ["--sign", $0] } ?? []))
        try #require(run.code == 0, "\(run.out)\(run.err)")
        return dir
    }

    @Test func aSignedBundleVerifiesWithItsKeyAndNamesIt() async throws {
        let (scratch, fingerprint) = try await keys()
        let dir = scratch.path("bundle")
        let run = await conformInProcess([
            "run", "--bundle", dir, "--sign", scratch.path("key.pem"), "--no-color", "suites/01-registration.yaml",
        ])
        #expect(run.code == 0, "\(run.err)")
        #expect(run.err.contains("Bundle: signed by key \(fingerprint) (MANIFEST.sha256.sig)\n"), "\(run.err)")
        let signature = try Data(contentsOf: URL(fileURLWithPath: dir + "/MANIFEST.sha256.sig"))
        #expect(signature.count == 64)

        let checked = await conformInProcess([
            "verify", dir, "--key", scratch.path("pub.pem"), "--allow-partial", "--no-color",
        ])
        #expect(checked.code == 0, "\(checked.out)\(checked.err)")
        #expect(
            checked.err.contains(
                "Signature: MANIFEST.sha256.sig verifies with \(scratch.path("pub.pem")): signed by key \(fingerprint)\n"
            ), "\(checked.err)")
        #expect(
            checked.out.hasSuffix(
                "Verification: VERIFIED partial (1 of 24 bundled suites), CONFORMS, signed by key \(fingerprint); "
                    + "accepted with --allow-partial\n"), "\(checked.out)")

        let unchecked = await conformInProcess(["verify", dir, "--allow-partial", "--no-color"])
        #expect(unchecked.code == 0, "\(unchecked.err)")
        #expect(
            unchecked.out.hasSuffix(
                "CONFORMS, signed, not checked (pass --key); accepted with --allow-partial\n"), "\(unchecked.out)")
    }

    @Test func aWrongKeyOrAManifestChangedAfterSigningIsTampered() async throws {
        let (scratch, _) = try await keys()
        let dir = try await bundle(scratch, sign: scratch.path("key.pem"))
        let wrong = await conformInProcess(["verify", dir, "--key", scratch.path("other-pub.pem"), "--no-color"])
        #expect(wrong.code == 2, "\(wrong.out)\(wrong.err)")
        #expect(
            wrong.out
                == "Verification: TAMPERED (the signature MANIFEST.sha256.sig does not verify with the key given)\n",
            "nothing is judged: \(wrong.out)")
        #expect(
            wrong.err.contains(
                "\(dir)/MANIFEST.sha256.sig: error: the signature does not verify with the key \(scratch.path("other-pub.pem")) (SHA256:"
            ), "\(wrong.err)")
        #expect(wrong.err.contains("the manifest was changed after it was signed, or another key signed it"))

        // A forger changes a file and writes the manifest again, but cannot sign it again.
        try FileManager.default.removeItem(atPath: dir + "/" + BundleManifest.fileName)
        var bytes = try String(contentsOfFile: dir + "/report.json", encoding: .utf8)
        bytes += " "
        try bytes.write(toFile: dir + "/report.json", atomically: false, encoding: .utf8)
        _ = try CertificationBundle.seal(dir)
        let resealed = await conformInProcess(["verify", dir, "--key", scratch.path("pub.pem"), "--no-color"])
        #expect(resealed.code == 2, "\(resealed.out)\(resealed.err)")
        #expect(
            resealed.out
                == "Verification: TAMPERED (the signature MANIFEST.sha256.sig does not verify with the key given)\n")
    }

    @Test func keyGivenAndNoSignatureIsNotVerified() async throws {
        let (scratch, fingerprint) = try await keys()
        let dir = try await bundle(scratch)
        let verified = await conformInProcess([
            "verify", dir, "--key", scratch.path("pub.pem"), "--allow-partial", "--no-color",
        ])
        #expect(verified.code == 1, "\(verified.out)\(verified.err)")
        #expect(
            verified.out
                == "Verification: NOT VERIFIED (the bundle is unsigned: it holds no MANIFEST.sha256.sig, and --key asks for a signature by key \(fingerprint))\n"
        )
        let plain = await conformInProcess(["verify", dir, "--allow-partial", "--no-color"])
        #expect(plain.code == 0)
        #expect(plain.out.hasSuffix(", CONFORMS, unsigned; accepted with --allow-partial\n"), "\(plain.out)")
    }

    /// Conform's signature is an Ed25519 signature of the manifest's bytes as `openssl pkeyutl` makes and checks
    /// them, both ways.
    @Test func signaturesInteroperateWithOpenSSL() async throws {
        let (scratch, fingerprint) = try await keys()
        let signed = try await bundle(scratch, name: "signed", sign: scratch.path("key.pem"))
        let checked = try await shell(
            "openssl pkeyutl -verify -pubin -inkey pub.pem -rawin -in signed/MANIFEST.sha256"
                + " -sigfile signed/MANIFEST.sha256.sig", in: scratch.url.path)
        #expect(checked.status == 0, "\(checked.output)\(checked.errorOutput)")
        #expect(checked.output.contains("Signature Verified Successfully"), "\(checked.output)")

        let unsigned = try await bundle(scratch, name: "unsigned")
        let made = try await shell(
            "openssl pkeyutl -sign -inkey key.pem -rawin -in unsigned/MANIFEST.sha256"
                + " -out unsigned/MANIFEST.sha256.sig", in: scratch.url.path)
        try #require(made.status == 0, "\(made.errorOutput)")
        let verified = await conformInProcess([
            "verify", unsigned, "--key", scratch.path("pub.pem"), "--allow-partial", "--no-color",
        ])
        #expect(verified.code == 0, "\(verified.out)\(verified.err)")
        #expect(verified.out.contains(", CONFORMS, signed by key \(fingerprint); accepted"), "\(verified.out)")
    }

    /// `merge --bundle OUT --sign KEY` signs the merged bundle, which `verify --key` checks: a certificate of the
    /// whole plan, signed.
    @Test func aMergedBundleIsSignedByMerge() async throws {
        let (scratch, fingerprint) = try await keys()
        let shards = try await BundleMergeTests.shardBundles(scratch)
        let out = scratch.path("merged")
        let merged = await conformInProcess(
            ["merge", "--bundle", out, "--sign", scratch.path("key.pem"), "--no-color"] + shards)
        #expect(merged.code == 0, "\(merged.err)")
        #expect(merged.err.contains("Bundle: signed by key \(fingerprint) (MANIFEST.sha256.sig)\n"), "\(merged.err)")
        let verified = await conformInProcess(["verify", out, "--key", scratch.path("pub.pem"), "--no-color"])
        #expect(verified.code == 0, "\(verified.out)\(verified.err)")
        #expect(
            verified.out.hasSuffix("Verification: VERIFIED certifiable, CONFORMS, signed by key \(fingerprint)\n"),
            "\(verified.out)")
    }

    /// Key files are hostile input: the wrong type, the wrong half, an encrypted key, a file too large or not a
    /// key are refused before anything runs, each naming the file.
    @Test func unusableKeyFilesAreRefusedByName() async throws {
        let (scratch, _) = try await keys()
        let made = try await shell(
            "openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ec.pem"
                + " && openssl genpkey -algorithm ed25519 -aes-128-cbc -pass pass:secret -out locked.pem",
            in: scratch.url.path)
        try #require(made.status == 0, "\(made.errorOutput)")
        try Data(repeating: 0x41, count: 20000).write(to: URL(fileURLWithPath: scratch.path("large.pem")))
        try Data("not a key\n".utf8).write(to: URL(fileURLWithPath: scratch.path("text.pem")))
        let cases: [(args: [String], file: String, message: String)] = [
            (["--sign", "ec.pem"], "ec.pem", "--sign: is an EC (ECDSA) private key, not an Ed25519 one"),
            (["--sign", "pub.pem"], "pub.pem", "--sign: is a public key; signing needs the private key"),
            (["--sign", "locked.pem"], "locked.pem", "--sign: the private key is encrypted"),
            (["--sign", "large.pem"], "large.pem", "is larger than 16384 bytes, which no Ed25519 PEM key is"),
            (["--sign", "text.pem"], "text.pem", "--sign: is not a PEM private key"),
            (["--sign", "missing.pem"], "missing.pem", "cannot read the key file"),
        ]
        for (args, file, message) in cases {
            let dir = scratch.path("refused")
            let run = await conformInProcess(
                ["run", "--bundle", dir, "--no-color", "suites/01-registration.yaml"]
                    + args.enumerated().map { $0.offset == 1 ? scratch.path($0.element) : $0.element })
            #expect(run.code == 2, "\(file): \(run.err)")
            #expect(run.err.contains("\(scratch.path(file)): error: \(message)"), "\(file): \(run.err)")
            #expect(run.out.isEmpty, "nothing runs: \(run.out)")
            #expect(!FileManager.default.fileExists(atPath: dir), "no bundle is started")
        }
        let dir = try await bundle(scratch)
        let privateKey = await conformInProcess(["verify", dir, "--key", scratch.path("key.pem"), "--no-color"])
        #expect(privateKey.code == 2)
        #expect(
            privateKey.err.contains(
                "\(scratch.path("key.pem")): error: --key: is a private key; verifying needs only the public key"),
            "\(privateKey.err)")
        let noBundle = await conformInProcess(["run", "--sign", scratch.path("key.pem"), "--no-color"])
        #expect(noBundle.code == 64)
        #expect(
            noBundle.err.contains("--sign signs the manifest of a bundle; give --bundle DIR too"), "\(noBundle.err)")
    }
}
