/// Which variables hold credentials, learned from where the suites' requests send them rather than guessed from
/// their names: what reports mask, what a bundle leaves out and what its redactor knows before the first exchange.
extension Suite {
    /// The names of the variables whose values a step of the suite sends as a credential.
    ///
    /// A name is a credential when a request puts it, after substitution, into a place that carries one
    /// (``ProtocolProfile/carriesCredential(header:)``, ``ProtocolProfile/carriesCredential(query:)``): as a
    /// whole expression (`Authorization: "App {{ appCode }}"`), or as an argument a function's output carries as a
    /// credential (`{{ jwt … secret=jwtSecret app=jwtAppCode }}`, ``TemplateFunction/credentialArguments``). A
    /// suite variable defined from other names passes that on (`auth: "App {{ code }}"` sent in `Authorization`
    /// makes `code` a credential too).
    public func credentialVariables(profile: ProtocolProfile) -> Set<String> {
        var functions = TemplateScope.builtinFunctions
        functions.merge(profile.functions) { _, new in new }
        var found: Set<String> = []
        // Steps share their header names, values and URLs (the loader interns equal templates), so each distinct
        // one is looked at once: a suite of thousands of steps writes a handful of each.
        var places: [String: Bool] = [:]
        var seenValues: Set<MatchSpec> = []
        var seenURLs: Set<TemplateValue> = []
        for flow in flows {
            for step in flow.steps {
                guard case .exchange(let exchange) = step.action else { continue }
                let request = exchange.request
                for header in request.headers {
                    let carries: Bool
                    if let known = places[header.name] {
                        carries = known
                    } else {
                        carries = profile.carriesCredential(header: header.name)
                        places[header.name] = carries
                    }
                    if carries, seenValues.insert(header.value).inserted {
                        found.formUnion(Self.credentialNames(in: header.value, functions))
                    }
                }
                for item in request.query where profile.carriesCredential(query: item.name) {
                    found.formUnion(Self.credentialNames(in: item.value, functions))
                }
                if seenURLs.insert(request.url).inserted {
                    found.formUnion(Self.credentialNames(inURL: request.url, profile: profile, functions))
                }
            }
        }
        // A credential defined from other names makes them credentials too, to any depth.
        let defaults = Dictionary(variables.map { ($0.name, $0.defaultValue) }, uniquingKeysWith: { a, _ in a })
        var pending = Array(found)
        while let name = pending.popLast() {
            guard let value = defaults[name] else { continue }
            for inner in Self.credentialNames(in: value, functions) where found.insert(inner).inserted {
                pending.append(inner)
            }
        }
        return found
    }

    /// The credential variables of every suite of a plan (``credentialVariables(profile:)``).
    public static func credentialVariables(of suites: [Suite], profile: ProtocolProfile) -> Set<String> {
        suites.reduce(into: []) { $0.formUnion($1.credentialVariables(profile: profile)) }
    }

    /// The names a value sent in a credential place puts there as credentials.
    static func credentialNames(in spec: MatchSpec, _ functions: [String: TemplateFunction]) -> [String] {
        switch spec {
        case .literal(let value): credentialNames(in: value, functions)
        case .object(let fields, _): fields.flatMap { credentialNames(in: $0.value, functions) }
        case .array(let items), .oneOf(let items), .allOf(let items):
            items.flatMap { credentialNames(in: $0, functions) }
        default: []
        }
    }

    static func credentialNames(in value: TemplateValue, _ functions: [String: TemplateFunction]) -> [String] {
        switch value {
        case .string(let template): template.parts.flatMap { credentialNames(in: $0, functions) }
        case .array(let items): items.flatMap { credentialNames(in: $0, functions) }
        case .object(let fields): fields.flatMap { credentialNames(in: $0.value, functions) }
        default: []
        }
    }

    static func credentialNames(in part: Template.Part, _ functions: [String: TemplateFunction]) -> [String] {
        guard case .expression(let e) = part else { return [] }
        if e.arguments.isEmpty, e.named.isEmpty { return e.referencedNames }
        let secret = functions[e.head]?.credentialArguments ?? []
        return e.named.compactMap { key, argument in
            guard secret.contains(key), case .name(let name) = argument else { return nil }
            return String(name.prefix { $0 != "." && $0 != "[" })
        }
    }

    /// The names a URL written with its query (`…?api_key={{ key }}`) sends in a credential query parameter.
    static func credentialNames(
        inURL url: TemplateValue, profile: ProtocolProfile, _ functions: [String: TemplateFunction]
    ) -> [String] {
        guard case .string(let template) = url else { return [] }
        var names: [String] = []
        var before = ""
        for part in template.parts {
            switch part {
            case .text(let text): before += text
            case .expression:
                // The parameter whose value this expression begins: the text since the last `?` or `&`, up to `=`.
                let pair = before.split(omittingEmptySubsequences: false) { $0 == "?" || $0 == "&" }.last ?? ""
                if before.contains("?"), pair.hasSuffix("="), profile.carriesCredential(query: String(pair.dropLast()))
                {
                    names += credentialNames(in: part, functions)
                }
                before += "\u{0}"
            }
        }
        return names
    }
}
