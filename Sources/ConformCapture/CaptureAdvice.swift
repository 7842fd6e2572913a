extension CaptureSummary {
    /// Why an import read no exchange, from what the capture held, and what to do about it.
    public func nothingRead(file: String, options: CaptureOptions) -> CaptureError {
        let summary = self
        let seen =
            "\(summary.packets) packet\(summary.packets == 1 ? "" : "s"), \(summary.streams) TCP "
            + "stream\(summary.streams == 1 ? "" : "s")"
        let ports = options.ports.sorted().map(String.init).joined(separator: ", ")
        let tcpdump = "tcpdump -i lo --immediate-mode -U -w FILE 'tcp port \(options.ports.sorted().first ?? 8080)'"
        if summary.packets == 0 {
            return CaptureError(
                file: file, message: "no exchange read: the capture holds no packet",
                help: "stop tcpdump with Ctrl-C (SIGINT) and wait for it to exit before importing, so it writes "
                    + "what it captured: \(tcpdump)")
        }
        if summary.streams == 0 {
            return CaptureError(
                file: file,
                message: "no exchange read: \(seen)"
                    + (ports.isEmpty ? "" : " to or from port \(ports)")
                    + (summary.filteredSegments > 0
                        ? " (\(summary.filteredSegments) TCP segments on other ports)" : ""),
                help: ports.isEmpty
                    ? "capture the port the server listens on: \(tcpdump)"
                    : "check --port: it names the port the server listens on, the one the clients connect to")
        }
        if summary.streamsMissingStart > 0, !options.resync {
            let which =
                summary.streamsMissingStart < summary.streams
                ? "\(summary.streamsMissingStart) of them without their beginning"
                : summary.streams == 1 ? "without its beginning" : "all without their beginning"
            return CaptureError(
                file: file,
                message: "no exchange read: \(seen), \(which) (the capture started after the clients connected, as "
                    + "with a pool of kept-alive connections)",
                help: "pass --resync to read each from its first whole request, or start tcpdump before the clients "
                    + "connect (\(tcpdump), stopped with Ctrl-C "
                    + "once they are done)")
        }
        return CaptureError(
            file: file,
            message: "no exchange read: \(seen); none held a whole HTTP/1.1 request and its response",
            help: summary.streamsWithProblems > 0
                ? "the lines above say why each stream was not read"
                : "capture while the clients send requests, and stop tcpdump with Ctrl-C once they are answered")
    }

}

extension CaptureOptions {
    /// The filter a live capture hands the kernel: TCP to or from the chosen ports, and the user's own filter.
    public func kernelFilter(adding extra: String?) -> String {
        var filters = ["tcp"]
        if !ports.isEmpty { filters.append("(" + ports.sorted().map { "port \($0)" }.joined(separator: " or ") + ")") }
        if let extra { filters.append("(\(extra))") }
        return filters.joined(separator: " and ")
    }
}
