/// The selection as it is typed on a command line, for a run's scope and a bundle's verification.
extension RunSelection {
    /// `--tag 'x'`, `--filter 'y'`, `--step 'z'`, each value quoted as a POSIX shell reads it back.
    public var words: [String] {
        [("--tag", tags), ("--filter", filters), ("--step", steps)].flatMap { name, values in
            values.map { "\(name) '" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        }
    }
}
