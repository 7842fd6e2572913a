import ConformTraffic
import Foundation

/// A capture read into a recording through ``RecordingWriter``: the same redaction, flows derived as the recorder
/// derives them, one line per exchange in the order responses completed.
public enum CaptureImport {
    /// Why an import stopped: the capture, or the recording.
    public enum Failure: Error {
        case capture(CaptureError)
        case recording(RecordingError)
    }

    /// Reads `source` until its end (or until `shouldStop` says so, checked between packets and on a live capture's
    /// idle timeouts) and writes every exchange to `writer`; `onExchange` sees each as written.
    public static func run(
        source: PacketSource, options: CaptureOptions, writer: RecordingWriter,
        shouldStop: () -> Bool = { false }, onExchange: @escaping (RecordedExchange) -> Void = { _ in }
    ) throws(Failure) -> CaptureSummary {
        guard PacketDecoder.LinkType.isSupported(source.linkType) else {
            throw .capture(
                CaptureError(
                    file: source.name, message: "link-layer type \(source.linkType) is not read",
                    help: "capture on Ethernet, loopback, `any` (Linux cooked) or a raw IP interface"))
        }
        var writeError: RecordingError?
        let reader = CaptureReader(options: options) { exchange in
            guard writeError == nil else { return }
            do throws(RecordingError) {
                onExchange(
                    try writer.append(
                        upstream: exchange.upstream, request: exchange.request, response: exchange.response,
                        startedAt: exchange.startedAt, durationMs: exchange.durationMs,
                        resynchronised: exchange.resynchronised))
            } catch {
                writeError = error
            }
        }
        let linkType = source.linkType
        var readError: CaptureError?
        reading: while writeError == nil, !shouldStop() {
            do throws(CaptureError) {
                switch try source.next({ time, bytes in reader.consume(time: time, linkType: linkType, bytes) }) {
                case .packet, .idle: continue
                case .end: break reading
                }
            } catch {
                readError = error
                break
            }
        }
        var summary = reader.finish()
        if let writeError { throw .recording(writeError) }
        summary.readError = readError
        if source.isLive, let stats = source.kernelStatistics {
            summary.kernelDropped = stats.dropped &+ stats.interfaceDropped
        }
        return summary
    }
}
