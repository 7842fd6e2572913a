import ConformYAML
import Foundation

/// Builds the steps of a large file on a thread of its own while the parser reads on: the parser hands over the
/// items it completes in batches, and this thread turns them into model steps in the order they came, with the
/// one ``LoadContext`` nothing else touches until ``finish()``. Parsing and building each take about half of a
/// file's load, so on two cores a large suite loads in about the time of the larger half.
///
/// The hand-over is bounded (``batchSize`` items a batch, ``maxBatches`` batches waiting), so memory stays that of
/// a few dozen steps however long the file, as when steps are built on the parser's thread.
final class StepBuilderThread: @unchecked Sendable {
    static let batchSize = 64
    static let maxBatches = 8
    /// The stack of the building thread: as large as a main thread's, for the deepest documents the limits allow.
    static let stackSize = 8 << 20

    /// Touched by the building thread alone between `init` and the end of ``finish()``.
    private var context: LoadContext
    /// The producer's batch, filled on the parser's thread alone.
    private var pending: [YAML.StreamedItem] = []
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var waiting: [[YAML.StreamedItem]] = []
    private var closed = false
    private let built = DispatchSemaphore(value: 0)

    init(context: consuming LoadContext) {
        self.context = context
        pending.reserveCapacity(Self.batchSize)
        let thread = Thread { [self] in build() }
        thread.stackSize = Self.stackSize
        thread.name = "conform-load"
        thread.start()
    }

    /// Hands over one completed item; called on the parser's thread, in document order.
    func take(_ item: YAML.StreamedItem) {
        pending.append(item)
        if pending.count == Self.batchSize { flush() }
    }

    /// Hands over what is left, waits until every item is built and gives the context back.
    func finish() -> LoadContext {
        if !pending.isEmpty { flush() }
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
        built.wait()
        return context
    }

    private func flush() {
        condition.lock()
        while waiting.count >= Self.maxBatches { condition.wait() }
        waiting.append(pending)
        condition.broadcast()
        condition.unlock()
        pending = []
        pending.reserveCapacity(Self.batchSize)
    }

    private func build() {
        while true {
            condition.lock()
            while waiting.isEmpty && !closed { condition.wait() }
            if waiting.isEmpty {
                condition.unlock()
                break
            }
            let batch = waiting.removeFirst()
            condition.broadcast()
            condition.unlock()
            for item in batch { context.streamedStep(item) }
        }
        built.signal()
    }
}
