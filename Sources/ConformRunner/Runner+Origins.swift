import ConformCore
import ConformDiagnostics
import ConformReport

extension Runner {
    /// Why `request` must not be sent: its origin is outside the plan's ``RunPlan/originPolicy`` and not one the
    /// implementation handed out, so the suite would take the user's variables (credentials among them)
    /// elsewhere; `nil` when it may go.
    func outsideTarget(_ request: HTTPRequest, mark: SourceMark, file: String, plan: RunPlan) -> StepError? {
        if plan.policy?.permits(request.url) == true { return nil }
        if let notice = plan.contacted?.cleartext(request.url) {
            // The HTTPS target announced this cleartext origin: the run says so once, and does not go there.
            let origin = OriginPolicy.origin(of: request.url) ?? request.url
            return StepError(
                .outsideTarget, at: file, mark,
                reason: "not sent: \(origin) is a cleartext base URL the HTTPS target announced (see the warning "
                    + "below the steps)",
                help: "pass --allow-host \(URLParts(origin).authority) to follow it anyway",
                fields: ["url": request.url, "origin": origin, "notice": notice])
        }
        guard let policy = plan.policy, !policy.permits(request.url), plan.contacted?.announced(request.url) != true
        else { return nil }
        let origin = OriginPolicy.origin(of: request.url) ?? HTTPSyntax.quoted(request.url)
        let host = URLParts(origin).authority
        return StepError(
            .outsideTarget, at: file, mark,
            reason: "not sent: the request goes to \(origin), outside the target's origins (\(policy))",
            help: "pass --allow-host \(host) to allow it",
            fields: ["url": request.url, "origin": origin, "allowed": policy.description])
    }
}
