import ConformCrypto
import ConformDiagnostics
import ConformReport
import ConformTraffic
import Foundation

/// The detached signature of a bundle's manifest: `--sign KEY` (run, merge) writes it, `verify --key PUB` checks
/// it. Key files are read to ``Ed25519/maxKeyFileBytes`` at most and must hold an Ed25519 key.
enum BundleSignature {
    /// The private key of `--sign FILE`, or the diagnostic that names the file and says what is wrong.
    static func signingKey(_ file: String, io: CommandIO) -> Result<Ed25519.PrivateKey, CLIFailure> {
        switch keyBytes(file, io: io) {
        case .failure(let failure): return .failure(failure)
        case .success(let bytes):
            do {
                return .success(try Ed25519.PrivateKey(pem: bytes))
            } catch {
                return .failure(problem(file, error, option: "--sign"))
            }
        }
    }

    /// The public key of `--key FILE`, or the diagnostic that names the file and says what is wrong.
    static func verifyingKey(_ file: String, io: CommandIO) -> Result<Ed25519.PublicKey, CLIFailure> {
        switch keyBytes(file, io: io) {
        case .failure(let failure): return .failure(failure)
        case .success(let bytes):
            do {
                return .success(try Ed25519.PublicKey(pem: bytes))
            } catch {
                return .failure(problem(file, error, option: "--key"))
            }
        }
    }

    private static func problem(_ file: String, _ error: Ed25519.KeyError, option: String) -> CLIFailure {
        CLIFailure(Diagnostic(.bundleKeyUnusable, file: file, message: "\(option): \(error.message)", help: error.help))
    }

    /// The bytes of a key file, refused when unreadable, not a regular file or larger than the cap.
    private static func keyBytes(_ file: String, io: CommandIO) -> Result<[UInt8], CLIFailure> {
        let path = io.resolve(file)
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
            let data = SmallFile.read(path, limit: Ed25519.maxKeyFileBytes + 1)
        else {
            return .failure(
                CLIFailure(
                    Diagnostic(
                        .bundleKeyUnusable, file: file, message: "cannot read the key file (it must be a regular file)",
                        help: "check that it exists and is readable")))
        }
        guard data.count <= Ed25519.maxKeyFileBytes else {
            return .failure(
                CLIFailure(
                    Diagnostic(
                        .bundleKeyUnusable, file: file,
                        message: "is larger than \(Ed25519.maxKeyFileBytes) bytes, which no Ed25519 PEM key is",
                        help:
                            "pass a PEM key as 'openssl genpkey -algorithm ed25519' (or 'openssl pkey -pubout') writes it"
                    )))
        }
        return .success([UInt8](data))
    }

    /// Signs the bundle's manifest as written (`manifestText`) and writes the signature beside it.
    static func sign(_ manifestText: String, with key: Ed25519.PrivateKey, in directory: String) throws(BundleProblem) {
        let signature = key.sign(Array(manifestText.utf8))
        try CertificationBundle.write(Data(signature), as: BundleManifest.signatureFile, in: directory)
    }

    /// What a bundle's signature says: none, there but not checked, or checked and good (by which key).
    typealias Status = BundleVerification.Signature

    /// The largest signature file read; a signature is ``Ed25519/signatureByteCount`` bytes.
    static let maxFileBytes = 4096

    /// The bundle's signature file, `nil` when there is none.
    static func read(in directory: String) throws(BundleProblem) -> [UInt8]? {
        let path = (directory as NSString).appendingPathComponent(BundleManifest.signatureFile)
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        let bytes = try VerifiedBundle.bytes(BundleManifest.signatureFile, in: directory, limit: maxFileBytes)
        guard bytes.count == Ed25519.signatureByteCount else {
            throw BundleProblem(
                file: BundleManifest.signatureFile,
                "is \(bytes.count) bytes; an Ed25519 signature is \(Ed25519.signatureByteCount) raw bytes",
                help:
                    "the signature is written by 'conform run --bundle DIR --sign KEY' (or 'openssl pkeyutl -sign -rawin'); ask for the bundle as it was written"
            )
        }
        return bytes
    }
}

extension BundleSignature {
    /// `--sign FILE`'s key, `nil` when the option is not given; a usage error without `--bundle DIR` (there is
    /// nothing else to sign), a failure naming the file when the key cannot be used.
    static func signOption(_ parsed: Arguments, io: CommandIO) throws(UsageError) -> Result<
        Ed25519.PrivateKey?, CLIFailure
    > {
        guard let file = parsed.value("--sign") else { return .success(nil) }
        guard parsed.value("--bundle") != nil else {
            throw UsageError(
                message: "--sign signs the manifest of a bundle; give --bundle DIR too", subcommand: parsed.subcommand)
        }
        return signingKey(file, io: io).map { Optional($0) }
    }
}

extension BundleSignature {
    /// Checks `bundle`'s signature with `key` (`--key FILE`), or says it is there unchecked: the status for the
    /// verification's last line, or the exit status once the verification's end is written (1: `--key` given and
    /// the bundle unsigned; 2: the signature does not verify, TAMPERED).
    static func check(
        _ bundle: VerifiedBundle, key: (file: String, key: Ed25519.PublicKey)?, shown: String, io: CommandIO
    ) -> Result<Status, ExitStatus> {
        let file = BundleManifest.signatureFile
        guard let key else {
            guard bundle.signature != nil else { return .success(.unsigned) }
            io.err.write(
                "Signature: \(file) is there but not checked; pass --key PUB.pem, the public key of whoever ran it\n")
            return .success(.notChecked)
        }
        let fingerprint = key.key.fingerprint
        guard let signature = bundle.signature else {
            io.out.write(
                "Verification: NOT VERIFIED (the bundle is unsigned: it holds no \(file), and --key asks for a "
                    + "signature by key \(fingerprint))\n")
            return .failure(ExitStatus(code: 1))
        }
        guard key.key.verifies(signature, of: [UInt8](bundle.manifestBytes)) else {
            io.report(
                Diagnostic(
                    .bundleInvalid, file: shown + "/" + file,
                    message:
                        "the signature does not verify with the key \(key.file) (\(fingerprint)): the manifest was changed after it was signed, or another key signed it",
                    help:
                        "ask whoever ran it for the bundle as it was signed, or for the public key they signed it with"
                ))
            io.out.write("Verification: TAMPERED (the signature \(file) does not verify with the key given)\n")
            return .failure(ExitStatus(code: ConformCommand.ExitCode.cannotRun))
        }
        io.err.write("Signature: \(file) verifies with \(key.file): signed by key \(fingerprint)\n")
        return .success(.signed(fingerprint: fingerprint))
    }

    /// An exit status already explained to the user.
    struct ExitStatus: Error {
        var code: Int32
    }
}
