import ConformCore
import ConformCrypto
import ConformDiagnostics
import ConformReport
import ConformTraffic
import Foundation

/// The verdict of a verification and its exit status, from one value (``BundleVerification``): the line the
/// console ends with is the verification's ``BundleVerification/line``, the status ``status(of:run:)`` of it.
public enum BundleVerdict {
    /// The verification of a bundle whose run judged again is `judged` (its status `status`): a bundle whose run is
    /// partial (a shard, a selection, suites of one's own) is intact but no certificate, so not a pass unless
    /// `allowPartial` accepts it. A suite of the bundle that is a bundled suite modified (`modified`) makes the run
    /// partial whatever its certification says, and is named first.
    public static func verification(
        of judged: RunResult, status: RunStatus, modified: [ModifiedSuite] = [],
        signed: BundleVerification.Signature, allowPartial: Bool
    ) -> BundleVerification {
        let suites = modified.map(\.reported)
        func said(_ verdict: BundleVerification.Verdict, _ reasons: [String], _ line: String, accepted: Bool = false)
            -> BundleVerification
        {
            BundleVerification(
                verdict: verdict, reasons: reasons, acceptedPartial: accepted, modifiedSuites: suites,
                signature: signed, line: line)
        }
        guard status != .cannotRun else {
            let why = "the run judged again could not run"
            return said(.notVerified, [why], "Verification: NOT VERIFIED (\(why))")
        }
        let verdict = judged.outcome
        var certifiability = judged.certifiability ?? .partial(["the report does not say what the run covered"])
        if !modified.isEmpty {
            let names = modified.prefix(5).map { "\($0.kitFile) (\($0.file))" }.joined(separator: ", ")
            let reason =
                Noun("suite").counted(modified.count) + " modified from this kit's bundled suites: " + names
                + (modified.count > 5 ? ", …" : "")
            certifiability = .partial([reason] + certifiability.reasons)
        }
        switch certifiability {
        case .certifiable:
            return said(.certifiable, [], "Verification: VERIFIED certifiable, \(verdict), \(signed.words)")
        case .partial(let reasons):
            let why = reasons.joined(separator: "; ")
            if allowPartial {
                let line =
                    "Verification: VERIFIED partial (\(why)), \(verdict), \(signed.words); accepted with --allow-partial"
                return said(.partial, reasons, line, accepted: true)
            }
            let line =
                "Verification: VERIFIED partial (\(why)), \(verdict), \(signed.words); no certificate: that is a whole "
                + "run of the bundled plan with every step run (pass --allow-partial to accept a partial one)"
            return said(.partial, reasons, line)
        }
    }

    /// The exit status of `verification`, whose run judged again had the status `run`: 2 for a bundle tampered
    /// with, or whose run could not run; a partial run not accepted is not a pass (1 when its run passed); else the
    /// run's own status.
    public static func status(of verification: BundleVerification, run: RunStatus) -> RunStatus {
        switch verification.verdict {
        case .tampered, .notVerified: return .cannotRun
        case .partial where !verification.acceptedPartial: return run == .conforms ? .mismatch : run
        default: return run
        }
    }
}

extension ModifiedSuite {
    /// The suite as reports show it: its diff cut where the console cuts it.
    public var reported: BundleVerification.ModifiedSuite {
        BundleVerification.ModifiedSuite(
            file: file, id: id, kitFile: kitFile, changedLines: diff?.changed ?? 0,
            diff: Array((diff?.lines ?? []).prefix(Self.maxShownLines)),
            hiddenLines: max(0, (diff?.lines.count ?? 0) - Self.maxShownLines))
    }
}

extension BundleVerifier {
    /// Why a verification ended before its run was judged, with its exit status (its line is written).
    struct End: Error {
        var status: RunStatus
    }

    /// Checks the bundle's signature with ``key`` (`--key FILE`), or says it is there unchecked: the signature's
    /// status for the verification's last line, or the end of the verification, its line written (1: `--key` given
    /// and the bundle unsigned, NOT VERIFIED; 2: the signature does not verify, TAMPERED).
    func checkSignature(_ bundle: VerifiedBundle) -> Result<BundleSignature.Status, End> {
        let file = BundleManifest.signatureFile
        guard let key else {
            guard bundle.signature != nil else { return .success(.unsigned) }
            output.err.write(
                "Signature: \(file) is there but not checked; pass --key PUB.pem, the public key of whoever ran it\n")
            return .success(.notChecked)
        }
        let fingerprint = key.fingerprint
        guard let signature = bundle.signature else {
            output.out.write(
                "Verification: NOT VERIFIED (the bundle is unsigned: it holds no \(file), and --key asks for a "
                    + "signature by key \(fingerprint))\n")
            return .failure(End(status: .mismatch))
        }
        guard key.verifies(signature, of: [UInt8](bundle.manifestBytes)) else {
            output.report(
                Diagnostic(
                    .bundleInvalid, file: shown + "/" + file,
                    message:
                        "the signature does not verify with the key \(keyFile) (\(fingerprint)): the manifest was changed after it was signed, or another key signed it",
                    help:
                        "ask whoever ran it for the bundle as it was signed, or for the public key they signed it with"
                ))
            output.out.write("Verification: TAMPERED (the signature \(file) does not verify with the key given)\n")
            return .failure(End(status: .cannotRun))
        }
        output.err.write("Signature: \(file) verifies with \(keyFile): signed by key \(fingerprint)\n")
        return .success(.signed(fingerprint: fingerprint))
    }
}
