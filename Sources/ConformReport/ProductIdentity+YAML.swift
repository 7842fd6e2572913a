import ConformCore
import ConformDiagnostics
import ConformYAML
import Foundation

/// A product file in the manner of Sonobuoy's `PRODUCT.yaml`: who made the implementation under test and which
/// version it is. `name` and `version` are required; the other keys are optional text.
extension ProductIdentity {
    /// The keys a product file may hold, in the order reports show them.
    public static let fileKeys = [
        "vendor", "name", "version", "type", "description", "website_url", "repo_url", "documentation_url",
        "product_logo_url", "contact_email_address",
    ]
    /// The largest product file read, and the longest value of each key (`description` may be longer).
    public static let maxFileBytes = 64 * 1024
    public static let maxValueLength = 256
    public static let maxDescriptionLength = 4096

    /// Reads a product file, collecting every problem (each at its `file:line:col`) before failing.
    public static func load(_ bytes: [UInt8], file: String) throws(YAMLParseFailure) -> ProductIdentity {
        guard let root = try YAML.parse(bytes, file: file, limits: YAMLLimits(maxBytes: maxFileBytes)) else {
            throw YAMLParseFailure([
                Diagnostic(
                    .fileEmpty, file: file, mark: SourceMark(line: 1, column: 1), message: "the product file is empty",
                    help: "write at least 'name: …' and 'version: …'")
            ])
        }
        var reader = ProductFileReader(file: file)
        var values: [String: String] = [:]
        for (key, node) in reader.pairs(root, allowed: fileKeys, in: "a product file") {
            guard let text = reader.string(node, key) else { continue }
            if let problem = Self.problem(key: key, value: text) {
                reader.error(node, problem.message, help: problem.help, id: .yamlInvalidValue)
            } else {
                values[key] = text
            }
        }
        if case .mapping = root.kind {
            for key in ["name", "version"] where !reader.hasKey(root, key) {
                reader.error(root, "the product file has no '\(key)'", help: "add '\(key): …'", id: .yamlMissingKey)
            }
        }
        if let failure = reader.failure { throw failure }
        return ProductIdentity(
            name: values["name"] ?? "", version: values["version"] ?? "",
            details: fileKeys.filter { $0 != "name" && $0 != "version" }.compactMap { key in
                values[key].map { (key, $0) }
            })
    }

    /// What is wrong with `value` for `key`: empty, too long, or holding control characters; `nil` when fine.
    public static func problem(key: String, value: String) -> (message: String, help: String)? {
        let limit = key == "description" ? maxDescriptionLength : maxValueLength
        if value.trimmingCharacters(in: .whitespaces).isEmpty {
            return ("'\(key)' is empty", "write the product's \(key)")
        }
        if value.count > limit {
            return ("'\(key)' is \(value.count) characters, more than \(limit)", "shorten it to \(limit) characters")
        }
        if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" }) {
            return ("'\(key)' holds control characters", "write plain text")
        }
        if key != "description" && value.contains("\n") {
            return ("'\(key)' spans several lines", "write it on one line")
        }
        return nil
    }

    /// The product file's text for these values, as a bundle writes it: each value a JSON string, which YAML
    /// reads as a double-quoted scalar.
    public var fileText: String {
        ([("name", name), ("version", version)] + details).map {
            "\($0.key): \(JSONValue.string($0.value).serialized())\n"
        }.joined()
    }
}

/// The reader of a product file.
struct ProductFileReader: YAMLDecodingContext {
    let file: String
    var diagnostics: [Diagnostic] = []
    var defaultID: DiagnosticID { .yamlInvalidValue }

    init(file: String) { self.file = file }

    func hasKey(_ node: YAMLNode, _ key: String) -> Bool {
        guard case .mapping(let pairs) = node.kind else { return false }
        return pairs.contains { if case .scalar(let k, _) = $0.key.kind { k == key } else { false } }
    }
}
