import ConformDiagnostics
import Foundation
import Synchronization

/// Where a reporter writes text: standard output, a file, or memory in tests.
public protocol TextSink: Sendable {
    func write(_ text: String)
    /// Writes terminal text (text escaped, Conform's own colours kept); by default as ``TerminalText/rendered``.
    func write(_ text: TerminalText)
}

extension TextSink {
    public func write(_ text: TerminalText) { write(text.rendered) }
}

/// A sink bound for a terminal, such as standard output or error: every text written is shown with its control
/// characters escaped (``Escaping/terminal(_:)``), so nothing from outside reaches the terminal as a control
/// sequence; only Conform's own sequences in ``TerminalText`` pass as they are.
public struct TerminalSink: TextSink {
    /// Where the escaped text goes.
    public var base: any TextSink

    public init(_ base: any TextSink) { self.base = base }

    public func write(_ text: String) { base.write(Escaping.terminal(text)) }

    public func write(_ text: TerminalText) { base.write(text.rendered) }
}

/// Collects text in memory.
public final class MemorySink: TextSink {
    private let buffer = Mutex("")

    public init() {}

    public func write(_ text: String) { buffer.withLock { $0 += text } }

    public var text: String { buffer.withLock { $0 } }
}

/// Writes to a file handle (standard output or error, or a file), unbuffered.
public final class FileHandleSink: TextSink {
    private let handle: FileHandle
    private let lock = Mutex(())

    public init(_ handle: FileHandle) { self.handle = handle }

    public static var standardOutput: FileHandleSink { FileHandleSink(.standardOutput) }
    public static var standardError: FileHandleSink { FileHandleSink(.standardError) }

    public func write(_ text: String) {
        lock.withLock { _ in handle.write(Data(text.utf8)) }
    }
}
