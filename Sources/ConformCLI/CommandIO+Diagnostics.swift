import ConformDiagnostics

extension CommandIO {
    /// Writes `diagnostic` to standard error with the one renderer, its source line shown when `source` is given.
    func report(_ diagnostic: Diagnostic, source: String? = nil) {
        let text =
            source.map { diagnostic.renderedText(source: $0, color: color) }
            ?? diagnostic.renderedText(sourceLine: nil, color: color)
        err.write(text + "\n")
    }

    /// Writes why a command cannot go on: a diagnostic through the renderer, any other error as its text.
    func report(failure error: any Error) {
        if let error = error as? any DiagnosticConvertible {
            report(error.diagnostic)
        } else {
            err.write("\(error)\n")
        }
    }

    /// The value `result` holds, or `nil` once its failure is written: what an option read from a file gives.
    func reported<Value>(_ result: Result<Value, CLIFailure>) -> Value? {
        switch result {
        case .success(let value): return value
        case .failure(let failure):
            report(failure.diagnostic)
            return nil
        }
    }

    /// Writes every diagnostic of a failed YAML load against the file's text.
    func report(_ diagnostics: [Diagnostic], source: String) {
        for diagnostic in diagnostics { report(diagnostic, source: source) }
    }
}
