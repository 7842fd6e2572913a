import Testing

@testable import ConformTraffic

/// Percent-encoded text is decoded for redaction and the scan, at most three levels, and what is found there is
/// replaced in the text's own form.
@Suite struct PercentDecodedTests {
    @Test func decodesEveryLevelAndMapsBackToTheOriginal() throws {
        let original = "a=x%40y.test&b=z%2540w.test&c=%25252540"
        let decoded = try #require(PercentDecoded(original))
        // Three levels: %252525 40 → %2525 40 → %25 40 → %40; the fourth is not decoded.
        #expect(decoded.text == "a=x@y.test&b=z@w.test&c=%40")
        let at = try #require(decoded.text.range(of: "z@w.test"))
        let written = try #require(decoded.writtenRange(at))
        let bytes = Array(original.utf8)
        #expect(String(decoding: bytes[written], as: UTF8.self) == "z%2540w.test")
        #expect(PercentDecoded.depth(Array("z%2540w.test".utf8)) == 2)
        #expect(PercentDecoded.encode("u@r.test", depth: 2) == "u%2540r.test")
    }

    @Test func replacesInTheOriginalsFormAndLeavesPlainMatchesToThePlainPass() throws {
        let original = "p@q.test x%40y.test z%2540w.test"
        let decoded = try #require(PercentDecoded(original))
        let matches = ["p@q.test", "x@y.test", "z@w.test"].compactMap { decoded.text.range(of: $0) }
        let edits = decoded.edits([(matches, { _ in "u@r.test" })], in: original)
        #expect(edits.count == 2, "the plain address is the plain pass's")
        #expect(decoded.replacing(edits, in: original) == "p@q.test u%40r.test u%2540r.test")
    }

    @Test func onlyEscapesOfASCIIBytesAreDecodedSoNoneCanHideAnAddress() throws {
        #expect(PercentDecoded("no escape @ here") == nil)
        #expect(PercentDecoded("100% sure, %zz") == nil)
        #expect(PercentDecoded("bad %FF%FE bytes") == nil)
        let mixed = try #require(PercentDecoded("%FFx%40y.test%C3%A9"))
        #expect(mixed.text == "%FFx@y.test%C3%A9")
    }
}
