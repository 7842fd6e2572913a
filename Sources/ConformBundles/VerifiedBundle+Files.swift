import ConformCore
import ConformDiagnostics
import ConformReport
import ConformTraffic
import ConformYAML
import Foundation

/// What `conform verify` checks of a bundle's files beyond the manifest: that they are the files a bundle holds,
/// that the product file is the one the report's provenance names, and that every report (JSON, JUnit, HTML) says
/// what the run judged again says.
extension VerifiedBundle {
    /// The largest `report.json` read (512 MiB), refused before it is read; it is read whole, then step by step.
    public static let maxReportBytes = 512 << 20

    /// The bytes of `name` in the bundle, refused before reading when larger than `limit`.
    public static func bytes(_ name: String, in directory: String, limit: Int) throws(BundleProblem) -> [UInt8] {
        do {
            return try ConfinedFile.bytes(name, in: directory, limit: limit)
        } catch {
            throw BundleProblem(file: name, "cannot be read: \(error)", help: BundleManifest.refusalHelp(error))
        }
    }

    /// Refuses a bundle whose files are not those a bundle holds: its reports, `bundle.json`, `VERSION`, its log,
    /// the suites `bundle.json` names and `PRODUCT.yaml` exactly when the report's provenance names a product. A
    /// file renamed, added or taken out (with the manifest written again) is named.
    static func checkFiles(
        _ manifest: BundleManifest, info: BundleInfo, product: ProductIdentity?, in directory: String
    ) throws(BundleProblem) {
        let listed = Set(manifest.entries.map(\.path))
        try checkProduct(product, listed: listed, in: directory)
        let logs = (info.shards.isEmpty ? [""] : info.shards.map { $0 + "/" }).flatMap { shard in
            let log = shard + CertificationBundle.logDirectory + "/"
            return (shard.isEmpty ? [] : [shard + CertificationBundle.infoFile])
                + [log + RecordingLayout.exchangesFile, log + RecordingLayout.metaFile]
        }
        var expected =
            [
                CertificationBundle.infoFile, CertificationBundle.versionFile, CertificationBundle.jsonReport,
                CertificationBundle.junitReport, CertificationBundle.htmlReport,
            ] + logs + info.suites
        if product != nil { expected.append(CertificationBundle.productFile) }
        for name in expected where !listed.contains(name) {
            throw BundleProblem(
                file: name, "the bundle does not hold this file, which every bundle of this run holds",
                help:
                    "the file was taken out or renamed and the manifest written again; ask for the bundle as it was written"
            )
        }
        if let extra = listed.subtracting(expected).sorted().first {
            throw BundleProblem(
                file: extra,
                "is not a file a bundle holds (its reports, bundle.json, VERSION, PRODUCT.yaml, \(info.shards.isEmpty ? "the log" : "each shard's bundle.json and log") and the suites bundle.json names)",
                help:
                    "the file was added, or another renamed to it, and the manifest written again; ask for the bundle as it was written"
            )
        }
        let version = try bytes(CertificationBundle.versionFile, in: directory, limit: 4096)
        guard String(decoding: version, as: UTF8.self) == "conform \(info.kitVersion)\ncommit \(info.kitCommit)\n"
        else {
            throw BundleProblem(
                file: CertificationBundle.versionFile,
                "does not name the kit bundle.json names (conform \(info.kitVersion), commit \(info.kitCommit))",
                help: "VERSION or bundle.json was changed; ask for the bundle as it was written")
        }
    }

    /// Refuses a product file that is not the product the report's provenance names, or that is there (or not)
    /// when the provenance names none (or one).
    static func checkProduct(_ product: ProductIdentity?, listed: Set<String>, in directory: String)
        throws(BundleProblem)
    {
        let name = CertificationBundle.productFile
        let changed = "ask for the bundle as it was written"
        switch (product, listed.contains(name)) {
        case (nil, false): return
        case (nil, true):
            throw BundleProblem(
                file: name, "the bundle holds a product file, but the report's provenance names no product",
                help: "the product file was added or the report changed; \(changed)")
        case (let product?, false):
            throw BundleProblem(
                file: name,
                "the report's provenance names the product '\(product.description)', but the bundle holds no \(name)",
                help: "the product file was taken out or renamed and the manifest written again; \(changed)")
        case (let product?, true):
            let found: ProductIdentity
            do {
                found = try ProductIdentity.load(
                    bytes(name, in: directory, limit: ProductIdentity.maxFileBytes), file: name)
            } catch let error as BundleProblem {
                throw error
            } catch {
                let first = (error as? YAMLParseFailure)?.diagnostics.first?.message ?? "\(error)"
                throw BundleProblem(file: name, "is not a product file: \(first)", help: changed)
            }
            let said = Self.fields(found), provenance = Self.fields(product)
            for key in ProductIdentity.fileKeys where said[key] != provenance[key] {
                throw BundleProblem(
                    file: name,
                    "its \(key) is \(said[key].map { "'\($0)'" } ?? "missing"), the report's provenance says \(provenance[key].map { "'\($0)'" } ?? "none")",
                    help: "the product file or the report was changed; \(changed)")
            }
        }
    }

    /// A product's members by key.
    static func fields(_ product: ProductIdentity) -> [String: String] {
        var out = ["name": product.name, "version": product.version]
        for (key, value) in product.details { out[key] = value }
        return out
    }

    /// Each report of the bundle that says otherwise than the run judged again, with what it says otherwise:
    /// `report.json` step by step and in its derived members, `report.xml` and `report.html` item by item
    /// (``ReportVerdicts``). The JUnit and HTML reports are read as they stream.
    ///
    /// The certification each report states and the HTML page's `<script>` and `<style>` are compared only when
    /// `sameKit` (the bundle was written by this kit's version and commit): another kit has its own bundled suites
    /// and writes its own page.
    public func disagreements(judged: RunResult, directory: String, sameKit: Bool) throws(BundleProblem) -> [(
        file: String, differences: [String]
    )] {
        var out: [(file: String, differences: [String])] = []
        let json =
            Self.differences(report: report.result, judged: judged)
            + Self.differences(written: reportJSON, judged: judged, certification: sameKit)
        if !json.isEmpty { out.append((CertificationBundle.jsonReport, json)) }
        let others: [(String, ReportVerdicts.Format, any DocumentReporter)] = [
            (CertificationBundle.junitReport, .junit, JUnitReporter(sink: MemorySink(), deterministic: true)),
            (CertificationBundle.htmlReport, .html, HTMLReporter(sink: MemorySink(), deterministic: true)),
        ]
        for (file, format, reporter) in others {
            var scanner = ReportVerdicts.Scanner(format: format)
            do {
                try ConfinedFile.forEachChunk(file, in: directory, limit: BundleManifest.maxFileBytes) {
                    scanner.feed($0)
                }
            } catch {
                throw BundleProblem(file: file, "cannot be read: \(error)", help: BundleManifest.refusalHelp(error))
            }
            var written = scanner.finish(), again = ReportVerdicts.rendered(judged, by: reporter, format: format)
            if !sameKit {
                let kitOwn = ReportVerdicts.certificationItems.union(["a script", "a style"])
                written.items.removeAll { kitOwn.contains($0.what) }
                again.items.removeAll { kitOwn.contains($0.what) }
            }
            let differences = ReportVerdicts.differences(written: written, judged: again)
            if !differences.isEmpty { out.append((file, differences)) }
        }
        return out
    }
}
