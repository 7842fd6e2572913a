import ConformBundles
import ConformCrypto
import ConformDiagnostics
import ConformReport
import ConformRunner

/// The command line's side of bundles: the kit as this executable is, where bundle sessions write, and the key
/// options (`--sign KEY` of run and merge, `--key PUB` of verify).
extension BundleKit {
    /// This executable's kit: its version and commit, the profile, the bundled suites beside it.
    static var cli: BundleKit {
        BundleKit(
            version: ConformCommand.version, commit: ConformCommand.commit, profile: ConformCommand.profile,
            bundledDirectory: SuiteFiles.bundledDirectory())
    }
}

extension CommandIO {
    /// Standard output and error, and the one diagnostic renderer, for a bundle session.
    var bundleConsole: BundleConsole {
        let io = self
        return BundleConsole(out: out, err: err, report: { io.report($0) })
    }
}

/// `--sign FILE` and `--key FILE`: Ed25519 keys read by ``BundleSignature``.
enum BundleKeyOption {
    /// `--sign FILE`'s key, `nil` when the option is not given; a usage error without `--bundle DIR` (there is
    /// nothing else to sign), a failure naming the file when the key cannot be used.
    static func sign(_ parsed: Arguments, io: CommandIO) throws(UsageError) -> Result<
        Ed25519.PrivateKey?, CLIFailure
    > {
        guard let file = parsed.value("--sign") else { return .success(nil) }
        guard parsed.value("--bundle") != nil else {
            throw UsageError(
                message: "--sign signs the manifest of a bundle; give --bundle DIR too", subcommand: parsed.subcommand)
        }
        do {
            return .success(try BundleSignature.signingKey(file, path: io.resolve(file)))
        } catch {
            return .failure(CLIFailure(error.diagnostic))
        }
    }

    /// `--key FILE`'s key, `nil` when the option is not given; a failure naming the file when it cannot be used.
    static func verify(_ parsed: Arguments, io: CommandIO) -> Result<Ed25519.PublicKey?, CLIFailure> {
        guard let file = parsed.value("--key") else { return .success(nil) }
        do {
            return .success(try BundleSignature.verifyingKey(file, path: io.resolve(file)))
        } catch {
            return .failure(CLIFailure(error.diagnostic))
        }
    }
}
