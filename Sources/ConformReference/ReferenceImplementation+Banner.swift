extension ReferenceImplementation {
    /// What `serve` says about the reference it serves: each application (id, user-data mode, application code and
    /// API key, each as `shown` renders it: masked unless public), and the faults and variants it was started with.
    public func servedLines(shown: (String) -> String) -> [String] {
        let apps = configuration.applications.map {
            "\($0.id) (\($0.userDataMode.rawValue)): applicationCode \(shown($0.applicationCode)), "
                + "API key \(shown($0.apiKey))"
        }
        var lines = ["Applications: " + apps.joined(separator: "; ")]
        if !faults.isEmpty { lines.append("Faults: " + faults.map(\.rawValue).sorted().joined(separator: ", ")) }
        if !variants.isEmpty { lines.append("Variants: " + variants.map(\.rawValue).sorted().joined(separator: ", ")) }
        return lines
    }
}
