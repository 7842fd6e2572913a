import ConformDiagnostics
import ConformRunner
import Foundation

/// Which suites a certification runs: the bundled ones (all or some), or suite files and directories of your own.
public struct CertificationSuites: Sendable, Hashable, CustomStringConvertible {
    private enum Source: Sendable, Hashable {
        case bundled(names: [String]?)
        case files([URL])
    }

    private let source: Source

    /// Every suite bundled with this version of the package (the repository's `suites/*.yaml`).
    public static let bundled = CertificationSuites(source: .bundled(names: nil))

    /// Some bundled suites, by file name with or without `.yaml` (`"02-login"`), run in the order given.
    public static func bundled(_ names: [String]) -> CertificationSuites {
        CertificationSuites(source: .bundled(names: names))
    }

    /// Suite files, and directories searched recursively for `*.yaml` and `*.yml` files (sorted by path).
    public static func files(_ urls: [URL]) -> CertificationSuites { CertificationSuites(source: .files(urls)) }

    /// The directory holding the bundled suites (`Bundle.module`), for reading them as files.
    public static var bundledDirectory: URL { Bundle.module.bundleURL }

    /// The file names of the bundled suites (`01-registration.yaml`, …), sorted: the order they run in.
    public static var bundledNames: [String] {
        LoadedSuites.suiteFiles(inDirectory: bundledDirectory.path).filter { !$0.contains("/") }
    }

    /// The selection as a reader would name it.
    public var description: String {
        switch source {
        case .bundled(nil): "the bundled suites"
        case .bundled(let names?): "the bundled suites " + names.joined(separator: ", ")
        case .files(let urls): urls.map(\.path).joined(separator: " ")
        }
    }

    /// The selected files as the names reports show and their contents (`nil` when unreadable).
    ///
    /// Bundled suites are named `suites/FILE`, as `conform run` names them from the repository root, so the
    /// summary matches the command's report line for line.
    func files() throws(CertificationSuites.Failure) -> [(name: String, contents: Data?)] {
        switch source {
        case .bundled(let names):
            let available = Self.bundledNames
            var chosen: [String] = []
            for name in names ?? available {
                let file = name.hasSuffix(".yaml") || name.hasSuffix(".yml") ? name : name + ".yaml"
                guard available.contains(file) else {
                    throw Failure(
                        diagnostic: Diagnostic(
                            .certificationUnknownSuite, message: "no bundled suite named '\(name)'",
                            help: "use one of: "
                                + available.map { String($0.prefix { $0 != "." }) }.joined(separator: ", ")))
                }
                chosen.append(file)
            }
            return chosen.map { file in
                let url = Self.bundledDirectory.appendingPathComponent(file)
                return ("suites/" + file, FileManager.default.contents(atPath: url.path))
            }
        case .files(let urls):
            var out: [(name: String, contents: Data?)] = []
            for url in urls {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                    throw Failure(
                        diagnostic: Diagnostic(
                            .suiteNotFound, file: url.path, message: "no such file or directory",
                            help: "pass suite files or directories that exist"))
                }
                guard isDirectory.boolValue else {
                    out.append((url.path, FileManager.default.contents(atPath: url.path)))
                    continue
                }
                for file in LoadedSuites.suiteFiles(inDirectory: url.path) {
                    let full = url.appendingPathComponent(file).path
                    out.append((full, FileManager.default.contents(atPath: full)))
                }
            }
            return out
        }
    }

    /// A selection that names no suite that exists.
    struct Failure: DiagnosticConvertible {
        var diagnostic: Diagnostic
    }
}
