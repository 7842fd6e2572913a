import ConformCore
import ConformYAML
import Foundation

extension RedactionPolicy {
    static let yamlKeys = [
        "enabled", "headers", "jsonPaths", "patterns", "phoneFields", "tokenFields", "emailsInText", "phonesInText",
        "keep",
    ]

    /// Loads a policy for exchanges of `profile` from YAML; lists add to the profile's (`phoneFields`,
    /// `tokenFields`, `keep`); every problem is reported.
    public static func load(
        _ bytes: [UInt8], file: String, profile: ProtocolProfile = .none
    ) throws(YAMLParseFailure) -> RedactionPolicy {
        var policy = RedactionPolicy(profile: profile)
        guard let root = try YAML.parse(bytes, file: file) else { return policy }
        var reader = YAMLConfigReader(file: file)
        for (key, value) in reader.pairs(root, allowed: yamlKeys, in: "a redaction policy") {
            switch key {
            case "enabled": policy.enabled = reader.bool(value, key) ?? true
            case "emailsInText": policy.emailsInText = reader.bool(value, key) ?? true
            case "phonesInText": policy.phonesInText = reader.bool(value, key) ?? true
            case "headers": policy.headers += reader.strings(value, key)
            case "phoneFields": policy.phoneFields += reader.strings(value, key)
            case "tokenFields": policy.tokenFields += reader.strings(value, key)
            case "keep": policy.keep += reader.strings(value, key)
            case "jsonPaths":
                for item in value.sequenceItems ?? [] {
                    if let pattern = reader.pathPattern(item) { policy.jsonPaths.append(pattern) }
                }
                if value.sequenceItems == nil { _ = reader.strings(value, key) }
            case "patterns":
                for item in value.sequenceItems ?? [] {
                    guard let text = reader.string(item, "pattern") else { continue }
                    if (try? TextPattern(text)) == nil {
                        reader.error(
                            item, "'\(text)' is not a valid regular expression", help: "fix the pattern (ICU syntax)")
                    } else {
                        policy.patterns.append(text)
                    }
                }
                if value.sequenceItems == nil { _ = reader.strings(value, key) }
            default: break
            }
        }
        if let failure = reader.failure { throw failure }
        return policy
    }
}
