import ConformCore
import Foundation
import Testing

@Suite struct WhitespaceTests {
    /// The fast path gives what Foundation's trimming gives, for visible ASCII ends and for every other kind.
    @Test(arguments: [
        "", " ", "\t", "abc", " abc", "abc ", "\tabc\t", "a b", "  a b  ", "\u{A0}abc", "abc\u{3000}", "é", " é ",
        "\u{2003}x\u{2003}", "x\n", "\nx", "App code",
    ])
    func trimsAsFoundationDoes(text: String) {
        #expect(text.trimmingWhitespace == text.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
        let sub = Substring("[" + text + "]").dropFirst().dropLast()
        #expect(sub.trimmingWhitespace == sub.trimmingCharacters(in: .whitespaces), "\(text.debugDescription)")
    }
}
