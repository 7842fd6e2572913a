import ConformCore
import ConformDiagnostics
import ConformReport
import ConformRunner
import ConformTraffic
import ConformYAML
import Foundation

/// A bundle whose files match its manifest and are the files a bundle holds, read: its info, report, suites and
/// exchange log; its product file agrees with the report's provenance.
public struct VerifiedBundle {
    public var manifest: BundleManifest
    public var info: BundleInfo
    public var report: RunReport
    /// The JSON report as written, for what reading it back derives rather than reads (a suite's verdict, counts).
    public var reportJSON: JSONValue
    public var suites: [Suite]
    /// The suite files as the bundle holds them: the name inside the bundle, as shown (for messages), the bytes.
    public var suiteFiles: [(name: String, shown: String, contents: Data)]
    /// The suites' problems, rendered, when they do not load.
    public var suiteProblems: TerminalText?
    /// What is judged again, each from its own log: the run, or each shard of a bundle merged from shards.
    public var parts: [Part]

    /// The manifest's bytes as read, which a signature signs.
    public var manifestBytes: Data
    /// The detached signature of the manifest, when the bundle holds one.
    public var signature: [UInt8]?
    /// The kit verifying: its profile loads the suites, its bundled suites are what the bundle's are compared with.
    public var kit: BundleKit

    /// Whether the bundle was written by this kit's version and commit (which has the same bundled suites and
    /// writes the same page).
    public var sameKit: Bool { info.kitVersion == kit.version && info.kitCommit == kit.commit }

    /// Reads the bundle in `directory` (`shown` as the user named it) and checks its files against its manifest and
    /// its report; its suites are loaded under `kit`'s profile.
    public init(directory: String, shown: String, kit: BundleKit) throws(BundleProblem) {
        self.kit = kit
        (manifest, manifestBytes) = try BundleManifest.checked(directory: directory)
        signature = try BundleSignature.read(in: directory)
        info = try BundleInfo(
            json: try Self.bytes(CertificationBundle.infoFile, in: directory, limit: BundleInfo.maxFileBytes))
        let reportBytes = try Self.bytes(CertificationBundle.jsonReport, in: directory, limit: Self.maxReportBytes)
        do throws(RunReportError) {
            report = try RunReport.read(bytes: reportBytes, source: CertificationBundle.jsonReport)
            reportJSON = try RunReport.writtenVerdicts(bytes: reportBytes, source: CertificationBundle.jsonReport)
        } catch {
            throw BundleProblem(file: CertificationBundle.jsonReport, error.message, help: error.help)
        }
        try Self.checkShardNames(info)
        try Self.checkFiles(manifest, info: info, product: report.result.provenance?.product, in: directory)
        var files: [(name: String, shown: String, contents: Data)] = []
        for name in info.suites {
            guard BundleManifest.isPlainRelative(name), manifest.entries.contains(where: { $0.path == name }) else {
                throw BundleProblem(
                    file: CertificationBundle.infoFile, "names the suite '\(name)', which the manifest does not list",
                    help: "the file is written by 'conform run --bundle DIR'; do not edit it")
            }
            // Refused above the size every suite file is loaded to, before it is read.
            files.append(
                (name, shown + "/" + name, Data(try Self.bytes(name, in: directory, limit: YAMLLimits().maxBytes))))
        }
        suiteFiles = files
        let loaded = LoadedSuites(
            files: files.map { (name: $0.shown, contents: Optional($0.contents)) }, profile: kit.profile)
        suites = loaded.suites
        suiteProblems = loaded.notRun == nil ? nil : loaded.renderedProblems()
        parts = try Self.parts(of: info, in: directory)
    }

    /// The members of the written JSON report that reading it back derives instead of reading (the verdict and
    /// counts of the run, each suite's verdict), where they differ from the run judged again.
    /// The certification (`certification`, `partialReasons`) is compared when `certification` is true.
    public static func differences(written: JSONValue, judged: RunResult, certification: Bool = true) -> [String] {
        let again = JSONReporter(sink: MemorySink(), deterministic: true).render(judged)
        var out: [String] = []
        let keys = ["exitCode", "result", "counts"] + (certification ? ["certification", "partialReasons"] : [])
        for key in keys where written[key] != again[key] {
            out.append(
                "the report's \(key) is \(written[key]?.serialized() ?? "missing"), judged again \(again[key]?.serialized() ?? "missing")"
            )
        }
        let writtenSuites = written["suites"]?.arrayValue ?? [], againSuites = again["suites"]?.arrayValue ?? []
        for (a, b) in zip(writtenSuites, againSuites) where a["id"] != b["id"] || a["verdict"] != b["verdict"] {
            out.append(
                "suite \(a["id"]?.stringValue ?? "?"): the report says \(a["verdict"]?.stringValue ?? "nothing"), judged again \(b["verdict"]?.stringValue ?? "nothing")"
            )
        }
        if writtenSuites.count != againSuites.count {
            out.append("the report holds \(writtenSuites.count) suites, judged again \(againSuites.count)")
        }
        return out
    }

    /// Each step whose verdict differs between the bundle's report and the run judged again, or that only one of
    /// them holds, as `suite › flow › N. name: report says X, judged Y`.
    public static func differences(report: RunResult, judged: RunResult) -> [String] {
        struct Key: Hashable {
            var suite: String
            var flow: String
            var index: Int
        }
        func verdicts(_ result: RunResult) -> [Key: (String, Verdict)] {
            var out: [Key: (String, Verdict)] = [:]
            for step in result.eachStep {
                out[Key(suite: step.suiteID, flow: step.flow, index: step.index)] = (step.name, step.verdict)
            }
            return out
        }
        let reported = verdicts(report), again = verdicts(judged)
        var out: [String] = []
        for key in Set(reported.keys).union(again.keys).sorted(by: {
            ($0.suite, $0.flow, $0.index) < ($1.suite, $1.flow, $1.index)
        }) {
            let name = reported[key]?.0 ?? again[key]?.0 ?? ""
            let a = reported[key].map { $0.1.rawValue } ?? "nothing"
            let b = again[key].map { $0.1.rawValue } ?? "nothing"
            if a != b {
                out.append(
                    "\(key.suite) › \(key.flow) › \(key.index + 1). \(name): the report says \(a), judged again \(b)")
            }
        }
        if out.isEmpty && report.exitCode != judged.exitCode {
            out.append("the report's exit code is \(report.exitCode), judged again \(judged.exitCode)")
        }
        return out
    }
}
