import ConformCore
import ConformCurl
import ConformReference
import ConformRunner
import ConformTransports

/// The implementation under test, as named on the command line.
enum Target: CustomStringConvertible {
    case builtin(faults: [ReferenceFault], variants: [ReferenceVariant] = [])
    case http(String)
    case exec(String)

    /// Looks up `--fault` names among the reference implementation's faults.
    static func faults(_ names: [String], subcommand: String) throws(UsageError) -> [ReferenceFault] {
        var parsed: [ReferenceFault] = []
        for name in names {
            guard let fault = ReferenceFault.allCases.first(where: { $0.rawValue == name }) else {
                let known = ReferenceFault.allCases.map(\.rawValue).sorted().joined(separator: ", ")
                throw UsageError(message: "unknown fault '\(name)'; known faults: \(known)", subcommand: subcommand)
            }
            parsed.append(fault)
        }
        return parsed
    }

    /// Looks up `--variant` names among the reference implementation's variants; `all` stands for every one.
    static func variants(_ names: [String], subcommand: String) throws(UsageError) -> [ReferenceVariant] {
        var parsed: [ReferenceVariant] = []
        for name in names {
            let found: [ReferenceVariant]
            if name == "all" {
                found = ReferenceVariant.allCases
            } else if let variant = ReferenceVariant.allCases.first(where: { $0.rawValue == name }) {
                found = [variant]
            } else {
                let known = (["all"] + ReferenceVariant.allCases.map(\.rawValue).sorted()).joined(separator: ", ")
                throw UsageError(
                    message: "unknown variant '\(name)'; known variants: \(known)", subcommand: subcommand)
            }
            for variant in found where !parsed.contains(variant) { parsed.append(variant) }
        }
        return parsed
    }

    init(parsing text: String, faults: [String], variants: [String] = [], subcommand: String = "run")
        throws(UsageError)
    {
        let parsedFaults = try Target.faults(faults, subcommand: subcommand)
        let parsedVariants = try Target.variants(variants, subcommand: subcommand)
        if text == "builtin" {
            self = .builtin(faults: parsedFaults, variants: parsedVariants)
        } else if text.hasPrefix("http://") || text.hasPrefix("https://") {
            if let problem = HTTPSyntax.baseURLProblem(text) {
                throw UsageError(
                    message: "--target \(HTTPSyntax.quoted(text)) \(problem); give http(s)://HOST[:PORT][/PATH]",
                    subcommand: subcommand)
            }
            self = .http(text.hasSuffix("/") ? String(text.dropLast()) : text)
        } else if text.hasPrefix("exec:"), text.count > 5 {
            self = .exec(String(text.dropFirst(5)))
        } else {
            throw UsageError(
                message: "--target takes builtin, an http(s) URL or exec:COMMAND, got '\(text)'", subcommand: subcommand
            )
        }
        if !parsedFaults.isEmpty, case .builtin = self {
        } else if !parsedFaults.isEmpty {
            throw UsageError(message: "faults apply only to the builtin target", subcommand: subcommand)
        }
        if !parsedVariants.isEmpty, case .builtin = self {
        } else if !parsedVariants.isEmpty {
            throw UsageError(message: "variants apply only to the builtin target", subcommand: subcommand)
        }
    }

    var description: String {
        switch self {
        case .builtin(let faults, let variants):
            "the embedded reference implementation"
                + (faults.isEmpty ? "" : " with faults " + faults.map(\.rawValue).joined(separator: ", "))
                + (variants.isEmpty
                    ? ""
                    : (faults.isEmpty ? " with" : " and") + " variants "
                        + variants.map(\.rawValue).joined(separator: ", "))
        case .http(let url): url
        case .exec(let command): "exec:\(command)"
        }
    }

    /// The variables the target supplies unless the suite or the command line says otherwise: the bases of the
    /// protocol `profile`.
    func variableDefaults(_ profile: ProtocolProfile) -> [String: String] {
        switch self {
        case .http(let url): profile.baseURLs(all: url)
        // An adapter decides where requests go: it gets origin-form URLs (`/mobile/1/appinstance`).
        case .exec: profile.baseURLs(all: "")
        case .builtin: profile.referenceBaseURLs
        }
    }

    /// The transport for this target; `insecure` skips TLS certificate checks (self-signed test servers), `tls` says
    /// what an http(s) target's TLS trusts and presents.
    ///
    /// The builtin reference is its own transport, so its latency variant waits without blocking a thread.
    /// `maxConcurrentExchanges` bounds an http(s) target's connections (curl's default when `nil`).
    func makeTransport(
        timeout: Duration, insecure: Bool = false, maxBodyBytes: Int = ResponseLimits.defaultMaxBodyBytes,
        tls: ClientTLS = ClientTLS(), proxy: String? = nil, maxConcurrentExchanges: Int? = nil
    ) throws -> any Transport {
        switch self {
        case .builtin(let faults, let variants):
            ReferenceImplementation(configuration: .default, faults: Set(faults), variants: Set(variants))
        case .http:
            Self.upstream(
                timeout: timeout, insecure: insecure, maxBodyBytes: maxBodyBytes, tls: tls, proxy: proxy,
                maxConcurrentExchanges: maxConcurrentExchanges)
        case .exec(let command): ExecTransport(command: command, timeout: timeout, maxBodyBytes: maxBodyBytes)
        }
    }

    /// The transport to any http(s) origin a request names: a recording proxy's upstreams, an http(s) target;
    /// `loops` threads drive libcurl (``CurlTransport``).
    static func upstream(
        timeout: Duration, insecure: Bool = false, maxBodyBytes: Int = ResponseLimits.defaultMaxBodyBytes,
        tls: ClientTLS = ClientTLS(), proxy: String? = nil, maxConcurrentExchanges: Int? = nil, loops: Int = 1
    ) -> any Transport {
        guard let maxConcurrentExchanges else {
            return CurlTransport(
                timeout: timeout, insecure: insecure, maxBodyBytes: maxBodyBytes, tls: tls, proxy: proxy, loops: loops)
        }
        return CurlTransport(
            timeout: timeout, insecure: insecure, maxConcurrentExchanges: maxConcurrentExchanges,
            maxBodyBytes: maxBodyBytes, tls: tls, proxy: proxy, loops: loops)
    }
}

extension Arguments {
    /// `--retry N`: what a command retries (``RetryPolicy``), or `nil` when it retries nothing.
    func retryPolicy() throws(UsageError) -> RetryPolicy? {
        guard let n = try integer("--retry"), n > 0 else { return nil }
        return RetryPolicy(retries: n)
    }
}

extension Transport {
    /// This transport, retrying what `policy` retries when there is one.
    func retrying(_ policy: RetryPolicy?) -> any Transport {
        policy.map { RetryTransport(inner: self, policy: $0) } ?? self
    }
}
