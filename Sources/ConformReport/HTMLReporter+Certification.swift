import Foundation

/// The page's certification banner (certifiable or partial, and why) and its provenance facts.
extension HTMLReporter {
    /// A banner that says whether the run is certifiable or partial, with the selection and "N of M bundled
    /// suites"; empty for results that are not suite runs.
    func certificationBanner(_ result: RunResult) -> String {
        guard let certifiability = result.certifiability else { return "" }
        var out =
            "<section class=\"certification \(certifiability.word)\" id=\"certification\" aria-label=\"Certification\">\n"
        switch certifiability {
        case .certifiable:
            out +=
                "<p class=\"certification-title\"><strong>Certifiable run</strong>: the whole bundled plan ran against one target; nothing was skipped and nothing failed to run.</p>\n"
        case .partial(let reasons):
            out +=
                "<p class=\"certification-title\"><strong>Partial run</strong>: this report is not a certificate. The verdict covers only what ran.</p>\n"
            out += "<ul>\n" + reasons.map { "<li>\(Escaping.html($0))</li>\n" }.joined() + "</ul>\n"
        }
        if let scope = result.scope {
            out += "<dl class=\"facts\">\n"
            out += fact("Bundled suites", Escaping.html(scope.coverage))
            out += fact(
                "Selection",
                scope.selection.isEmpty
                    ? "none" : scope.selection.map { "<code>\(Escaping.html($0))</code>" }.joined(separator: " "))
            if scope.shard.count > 1 { out += fact("Shard", "<code>\(Escaping.html(scope.shard.description))</code>") }
            out += "</dl>\n"
        }
        return out + "</section>\n"
    }

    /// The kit, suites, product, command line, variables and times the run comes from.
    func provenanceSection(_ result: RunResult) -> String {
        guard let p = result.provenance else { return "" }
        let masker = SecretMasker()
        var out = "<section class=\"provenance\" id=\"provenance\" aria-labelledby=\"provenance-title\">\n"
        out += "<h2 id=\"provenance-title\">Provenance</h2>\n<dl class=\"facts\">\n"
        if let product = p.product {
            out += fact("Product", Escaping.html(product.name) + " <code>\(Escaping.html(product.version))</code>")
            for (key, value) in product.details { out += fact(key, Escaping.html(masker.text(value))) }
        }
        out += fact(
            "Conform", "\(Escaping.html(p.kitVersion)), commit <code>\(Escaping.html(p.kitCommit))</code>")
        out += fact("Suites (SHA-256 of the plan)", "<code class=\"hash\">\(Escaping.html(p.suitesDigest))</code>")
        if !deterministic {
            out += fact("Started", Escaping.html(RunProvenance.timestamp(p.startedAt)))
            if let end = p.finishedAt { out += fact("Finished", Escaping.html(RunProvenance.timestamp(end))) }
        }
        out += "</dl>\n"
        out +=
            "<p><strong>Command line</strong> (credentials masked):</p>\n<pre class=\"body\">\(Escaping.html(masker.text(p.commandLine.joined(separator: " "))))</pre>\n"
        if !p.variables.isEmpty {
            out += "<table class=\"headers\"><caption>Variables (credentials masked)</caption>\n"
            for v in p.variables {
                out +=
                    "<tr><th scope=\"row\">\(Escaping.html(v.name))</th><td>\(Escaping.html(masker.text(v.value)))</td></tr>\n"
            }
            out += "</table>\n"
        }
        out += "<table class=\"headers\"><caption>Suite files (SHA-256)</caption>\n"
        for f in p.suiteFiles {
            out += "<tr><th scope=\"row\">\(Escaping.html(f.file))</th><td>\(Escaping.html(f.sha256))</td></tr>\n"
        }
        return out + "</table>\n</section>\n"
    }
}
