import ConformDiagnostics

extension Suite {
    /// A request URL written as an absolute URL in the suite itself (not through a base name such as
    /// `{{ mobile }}`): its origin and where it is written.
    public struct WrittenOrigin: Sendable, Hashable {
        public var origin: String
        public var mark: SourceMark
    }

    /// Every request URL that starts with a literal `http(s)://host…` (its authority written out, not templated):
    /// the origins the suite itself would send to, whatever the target.
    public var writtenOrigins: [WrittenOrigin] {
        var found: [WrittenOrigin] = []
        for flow in flows {
            for step in flow.steps {
                guard case .exchange(let exchange) = step.action, case .string(let template) = exchange.request.url,
                    case .text(let head)? = template.parts.first
                else { continue }
                // The authority ends at the first `/`, `?` or `#` after `://`, or with the template when it is all text.
                guard let scheme = head.range(of: "://") else { continue }
                let rest = head[scheme.upperBound...]
                let whole = template.parts.count == 1
                guard whole || rest.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" }) else { continue }
                if let origin = OriginPolicy.origin(of: head) {
                    found.append(WrittenOrigin(origin: origin, mark: exchange.request.mark))
                }
            }
        }
        return found
    }
}
