import ConformCrypto
import ConformDiagnostics
import ConformReport
import ConformTraffic
import Foundation

/// The detached signature of a bundle's manifest: `--sign KEY` (run, merge) writes it, `verify --key PUB` checks
/// it. Key files are read to ``Ed25519/maxKeyFileBytes`` at most and must hold an Ed25519 key.
public enum BundleSignature {
    /// A key file that cannot be used, with the diagnostic that names it and says what is wrong.
    public struct KeyProblem: Error, DiagnosticConvertible {
        public var diagnostic: Diagnostic
    }

    /// The private key in the file at `path` (`file` as the user named it, given with `option`).
    public static func signingKey(_ file: String, path: String, option: String = "--sign") throws(KeyProblem)
        -> Ed25519.PrivateKey
    {
        try key(file, path: path, option: option, Ed25519.PrivateKey.init(pem:))
    }

    /// The public key in the file at `path` (`file` as the user named it, given with `option`).
    public static func verifyingKey(_ file: String, path: String, option: String = "--key") throws(KeyProblem)
        -> Ed25519.PublicKey
    {
        try key(file, path: path, option: option, Ed25519.PublicKey.init(pem:))
    }

    /// The key `read` makes of the key file at `path`; a file it refuses is a problem naming `option`.
    private static func key<Key>(
        _ file: String, path: String, option: String, _ read: ([UInt8]) throws(Ed25519.KeyError) -> Key
    ) throws(KeyProblem) -> Key {
        let bytes = try keyBytes(file, path: path)
        do {
            return try read(bytes)
        } catch {
            throw KeyProblem(
                diagnostic: Diagnostic(
                    .bundleKeyUnusable, file: file, message: "\(option): \(error.message)", help: error.help))
        }
    }

    /// The bytes of a key file, refused when unreadable, not a regular file or larger than the cap.
    private static func keyBytes(_ file: String, path: String) throws(KeyProblem) -> [UInt8] {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
            let handle = FileHandle(forReadingAtPath: path),
            let data = try? handle.read(upToCount: Ed25519.maxKeyFileBytes + 1) ?? Data()
        else {
            throw KeyProblem(
                diagnostic: Diagnostic(
                    .bundleKeyUnusable, file: file, message: "cannot read the key file (it must be a regular file)",
                    help: "check that it exists and is readable"))
        }
        try? handle.close()
        guard data.count <= Ed25519.maxKeyFileBytes else {
            throw KeyProblem(
                diagnostic: Diagnostic(
                    .bundleKeyUnusable, file: file,
                    message: "is larger than \(Ed25519.maxKeyFileBytes) bytes, which no Ed25519 PEM key is",
                    help: "pass a PEM key as 'openssl genpkey -algorithm ed25519' (or 'openssl pkey -pubout') writes it"
                ))
        }
        return [UInt8](data)
    }

    /// Signs the bundle's manifest as written (`manifestText`) and writes the signature beside it.
    public static func sign(_ manifestText: String, with key: Ed25519.PrivateKey, in directory: String)
        throws(BundleProblem)
    {
        let signature = key.sign(Array(manifestText.utf8))
        try CertificationBundle.write(Data(signature), as: BundleManifest.signatureFile, in: directory)
    }

    /// What a bundle's signature says: none, there but not checked, or checked and good (by which key).
    public typealias Status = BundleVerification.Signature

    /// The largest signature file read; a signature is ``Ed25519/signatureByteCount`` bytes.
    public static let maxFileBytes = 4096

    /// The bundle's signature file, `nil` when there is none.
    public static func read(in directory: String) throws(BundleProblem) -> [UInt8]? {
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
