import ConformCore
import ConformDiagnostics
import ConformYAML
import Foundation

extension ReferenceConfiguration {
    /// Loads a configuration file, JSON (`.json`) or YAML (anything else); every problem is reported, each with file:line:col.
    ///
    /// Format (YAML shown; JSON has the same keys):
    /// ```yaml
    /// tagKey: tags            # optional, default "tags"
    /// baseURL: http://mobile.conform.invalid   # optional
    /// seed: run-1             # optional, makes generated ids reproducible
    /// applications:
    ///   - id: default
    ///     applicationCode: conform-app-code
    ///     apiKey: conform-api-key
    ///     userDataMode: all   # all | jwt | restricted | restricted-access
    ///     jwtKeys: {conform-kid: 636f6e…}   # hex secrets by kid; required for jwt
    /// ```
    public static func load(contentsOf url: URL) throws(YAMLParseFailure) -> ReferenceConfiguration {
        let file = url.path
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw YAMLParseFailure([
                Diagnostic(
                    .fileUnreadable, file: file, mark: SourceMark(line: 1, column: 1),
                    message: "cannot read the file: \(error.localizedDescription)",
                    help: "check the path and permissions")
            ])
        }
        return try parse(Array(data), file: file, json: url.pathExtension.lowercased() == "json")
    }

    /// Parses configuration text; `json` picks the JSON parser, else YAML.
    public static func parse(_ bytes: [UInt8], file: String, json: Bool) throws(YAMLParseFailure)
        -> ReferenceConfiguration
    {
        var marks: [String: SourceMark] = [:]
        let value: JSONValue
        if json {
            do {
                value = try JSONValue.parse(Data(bytes))
            } catch {
                throw YAMLParseFailure([
                    Diagnostic(
                        .referenceConfigInvalid, file: file, mark: SourceMark(line: error.line, column: error.column),
                        message: error.message,
                        help: "fix the JSON syntax")
                ])
            }
            // JSON is YAML too: a second parse only to learn each node's line and column.
            if let node = try? YAML.parse(bytes, file: file) { _ = jsonValue(node, path: "$", marks: &marks) }
        } else {
            guard let node = try YAML.parse(bytes, file: file) else {
                throw YAMLParseFailure([
                    Diagnostic(
                        .fileEmpty, file: file, mark: SourceMark(line: 1, column: 1),
                        message: "the configuration is empty",
                        help: "add an 'applications' list")
                ])
            }
            value = jsonValue(node, path: "$", marks: &marks)
        }
        var decoder = ConfigurationDecoder(file: file, marks: marks)
        let configuration = decoder.decode(value)
        if let failure = decoder.failure { throw failure }
        return configuration
    }

    /// Converts a YAML tree to JSON (YAML 1.2 core schema for plain scalars), remembering each node's mark by path.
    static func jsonValue(_ node: YAMLNode, path: String, marks: inout [String: SourceMark]) -> JSONValue {
        marks[path] = node.mark
        switch node.kind {
        case .scalar:
            switch node.resolvedScalar {
            case .null, nil: return .null
            case .bool(let b): return .bool(b)
            case .int(let i): return .int(i)
            case .double(let d): return .double(d)
            case .string(let text): return .string(text)
            }
        case .sequence(let items):
            return .array(items.enumerated().map { jsonValue($1, path: "\(path)[\($0)]", marks: &marks) })
        case .mapping(let pairs):
            var object = JSONObject()
            for pair in pairs {
                let key: String = if case .scalar(let k, _) = pair.key.kind { k } else { "\(pair.key)" }
                marks["\(path).\(key)#key"] = pair.key.mark
                object[key] = jsonValue(pair.value, path: "\(path).\(key)", marks: &marks)
            }
            return .object(object)
        }
    }
}

/// Turns a JSON tree into a configuration, collecting every problem at the mark of the JSON path it concerns.
///
/// It decodes JSON values, not YAML nodes, because a configuration may be JSON; the marks come from reading the
/// same text as YAML.
struct ConfigurationDecoder: YAMLDecodingContext {
    let file: String
    let marks: [String: SourceMark]
    var diagnostics: [Diagnostic] = []
    var defaultID: DiagnosticID { .referenceConfigInvalid }

    init(file: String, marks: [String: SourceMark]) {
        self.file = file
        self.marks = marks
    }

    mutating func problem(_ path: String, _ message: String, help: String) {
        error(
            at: marks[path] ?? marks[path + "#key"] ?? SourceMark(line: 1, column: 1), "\(path): \(message)", help: help
        )
    }

    mutating func decode(_ value: JSONValue) -> ReferenceConfiguration {
        var configuration = ReferenceConfiguration(applications: [])
        guard let root = value.objectValue else {
            problem("$", "the configuration must be a mapping", help: "start with 'applications:'")
            return configuration
        }
        for key in root.keys where !["applications", "tagKey", "baseURL", "seed"].contains(key) {
            problem("$.\(key)", "unknown key '\(key)'", help: "allowed keys: applications, tagKey, baseURL, seed")
        }
        configuration.tagKey = string(root["tagKey"], "$.tagKey") ?? configuration.tagKey
        configuration.baseURL = string(root["baseURL"], "$.baseURL") ?? configuration.baseURL
        configuration.seed = string(root["seed"], "$.seed")
        guard let apps = root["applications"]?.arrayValue, !apps.isEmpty else {
            problem("$.applications", "'applications' must be a non-empty list", help: "add at least one application")
            return configuration
        }
        for (index, app) in apps.enumerated() {
            if let decoded = application(app, "$.applications[\(index)]") { configuration.applications.append(decoded) }
        }
        for field in [\ReferenceConfiguration.Application.id, \.applicationCode, \.apiKey] {
            var seen: Set<String> = []
            for (index, app) in configuration.applications.enumerated() where !seen.insert(app[keyPath: field]).inserted
            {
                problem(
                    "$.applications[\(index)]", "duplicate value '\(app[keyPath: field])'",
                    help: "ids, codes and keys must be unique")
            }
        }
        let codes = Set(configuration.applications.map(\.applicationCode))
        for (index, app) in configuration.applications.enumerated() where codes.contains(app.apiKey) {
            problem(
                "$.applications[\(index)].apiKey", "an API key equals an application code",
                help: "use distinct credentials (D11)")
        }
        return configuration
    }

    private mutating func application(_ value: JSONValue, _ path: String) -> ReferenceConfiguration.Application? {
        guard let object = value.objectValue else {
            problem(path, "an application must be a mapping", help: "give id, applicationCode, apiKey and userDataMode")
            return nil
        }
        let allowed = ["id", "applicationCode", "apiKey", "userDataMode", "jwtKeys"]
        for key in object.keys where !allowed.contains(key) {
            problem("\(path).\(key)", "unknown key '\(key)'", help: "allowed keys: \(allowed.joined(separator: ", "))")
        }
        var fields: [String: String] = [:]
        for key in ["id", "applicationCode", "apiKey"] {
            guard let text = string(object[key], "\(path).\(key)"), !text.isEmpty else {
                if object[key] == nil { problem(path, "missing '\(key)'", help: "add '\(key): <non-empty text>'") }
                continue
            }
            fields[key] = text
        }
        let mode = ReferenceConfiguration.UserDataMode(
            rawValue: string(object["userDataMode"], "\(path).userDataMode") ?? "all")
        if !ReferenceConfiguration.UserDataMode.known.contains(mode) {
            problem(
                "\(path).userDataMode", "unknown userDataMode '\(mode)'",
                help: "use all, jwt, restricted or restricted-access")
        }
        var keys: [String: String] = [:]
        if let raw = object["jwtKeys"], !raw.isNull {
            if let map = raw.objectValue {
                for (kid, secret) in map {
                    guard let hex = secret.stringValue, hex.count >= 2, hex.count % 2 == 0,
                        hex.allSatisfy({ $0.isHexDigit })
                    else {
                        problem(
                            "\(path).jwtKeys.\(kid)", "the secret must be hex text",
                            help: "write the key bytes as hex, e.g. 6b6579")
                        continue
                    }
                    keys[kid] = hex
                }
            } else {
                problem(
                    "\(path).jwtKeys", "'jwtKeys' must be a mapping of kid to hex secret",
                    help: "e.g. jwtKeys: {my-kid: 6b6579}")
            }
        }
        if mode == .jwt && keys.isEmpty {
            problem(
                path, "a jwt application needs at least one key in 'jwtKeys'",
                help: "add jwtKeys: {<kid>: <hex secret>}")
        }
        guard let id = fields["id"], let code = fields["applicationCode"], let key = fields["apiKey"] else {
            return nil
        }
        return ReferenceConfiguration.Application(
            id: id, applicationCode: code, apiKey: key, userDataMode: mode, jwtKeys: keys)
    }

    private mutating func string(_ value: JSONValue?, _ path: String) -> String? {
        guard let value, !value.isNull else { return nil }
        if let s = value.stringValue { return s }
        if case .int(let i) = value { return String(i) }
        problem(path, "expected text, found \(value.typeName)", help: "quote the value")
        return nil
    }
}
