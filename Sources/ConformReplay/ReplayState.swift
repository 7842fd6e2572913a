import Synchronization

/// An array as an `AsyncSequence`.
struct AsyncArraySequence<Element: Sendable>: AsyncSequence, Sendable {
    let items: [Element]
    init(_ items: [Element]) { self.items = items }

    func makeAsyncIterator() -> Iterator { Iterator(items: items) }

    struct Iterator: AsyncIteratorProtocol {
        let items: [Element]
        var index = 0
        mutating func next() async throws -> Element? {
            guard index < items.count else { return nil }
            defer { index += 1 }
            return items[index]
        }
    }
}

/// The summary shared by the tasks of one replay, and in a differential the expected side's id maps.
final class ReplayState: Sendable {
    let summary: Mutex<ReplaySummary>
    /// The expected side's ids: recorded to live, and the ids each side minted back to the recorded ones.
    let expectedSide: Mutex<ExpectedSideIdentifiers>

    init(_ initial: ReplaySummary, expectedSide substitutions: [String: String] = [:]) {
        summary = Mutex(initial)
        expectedSide = Mutex(ExpectedSideIdentifiers(identifiers: IdentifierMap(substitutions)))
    }
}
