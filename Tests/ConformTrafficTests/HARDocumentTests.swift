import ConformCore
import ConformMobileMessaging
import Foundation
import Testing

@testable import ConformTraffic

/// A HAR is read entry by entry: the scan finds the same entries, errors and order as reading it whole.
@Suite struct HARDocumentTests {
    static func entry(_ n: Int, second: Int) -> String {
        #"{"startedDateTime":"2026-01-05T10:00:\#(String(format: "%02d", second)).000Z","time":1,"#
            + #""request":{"method":"GET","url":"http://h/mobile/1/appinstance/r\#(n)/user","headers":[]},"#
            + #""response":{"status":200,"headers":[],"content":{"text":"{\"n\":\#(n)}"}}}"#
    }

    static let threeEntries = [entry(1, second: 3), entry(2, second: 1), entry(3, second: 2)].joined(separator: ",\n")

    @Test func scannedAndWholeReadsAgree() throws {
        let plain = #"{"log":{"version":"1.2","creator":{"name":"x"},"entries":[\#(Self.threeEntries)]}}"#
        let document = try HARDocument(Data(plain.utf8), file: "t.har")
        guard case .ranges(let ranges) = document.entries else {
            Issue.record("a plain HAR was not scanned")
            return
        }
        #expect(ranges.count == 3)
        // Forms the scan leaves to the whole read: a byte-order mark, an escaped key, a repeated `log`.
        let forms = [
            "\u{FEFF}" + plain,
            #"{"\u006cog":{"entries":[\#(Self.threeEntries)]}}"#,
            #"{"log":{"entries":[]},"log":{"entries":[\#(Self.threeEntries)]}}"#,
        ]
        let scanned = try (0..<3).map { try document.exchange($0) }
        for form in forms {
            guard let other = try? HARDocument(Data(form.utf8), file: "t.har") else {
                // The whole read refuses what it refused before (e.g. a byte-order mark); nothing to compare.
                continue
            }
            guard case .parsed = other.entries else {
                Issue.record("an unusual HAR was scanned: \(form.prefix(30))")
                continue
            }
            #expect(try (0..<other.count).map { try other.exchange($0) } == scanned)
        }
    }

    @Test func startOrderAndEventsFollowTheWholeRead() throws {
        let text = #"{"log":{"entries":[\#(Self.threeEntries)]}}"#
        let document = try HARDocument(Data(text.utf8))
        #expect(document.startOrder == [1, 2, 0])
        let ordered = try document.records(order: document.startOrder).all().map(\.seq)
        #expect(ordered == [2, 3, 1])
        let events = #"[{"seq":2,"event":"logout","at":"2026-01-05T10:00:04Z"}]"#
        let withEvents = #"{"log":{"_conformEvents":\#(events),"entries":[\#(Self.threeEntries)]}}"#
        let records = try HARDocument(Data(withEvents.utf8), profile: .mobileMessaging).records(order: [2, 1, 0]).all()
        // With app events the file's numbering is kept, and the event goes before the entry it precedes.
        #expect(records.map(\.seq) == [1, 2, 2, 3])
        guard case .event = records[1] else {
            Issue.record("the event is not before entry 2")
            return
        }
        #expect(try importedHARTrace(Data(withEvents.utf8)) == records)
    }

    @Test func aBrokenEntryNamesItsLineAndColumnInTheFile() throws {
        let broken = Self.entry(2, second: 1).replacingOccurrences(of: #""time":1,"#, with: #""time":1,,"#)
        let text = "{\"log\":{\"entries\":[\n" + Self.entry(1, second: 0) + ",\n" + broken + "]}}"
        let whole: String
        do {
            _ = try JSONValue.parse(text)
            whole = "parsed"
        } catch {
            whole = "\(error.line):\(error.column)"
        }
        #expect(whole.hasPrefix("3:"))
        // The broken entry is skipped and named with its place in the whole file; the first still reads.
        let document = try HARDocument(Data(text.utf8), file: "t.har")
        #expect(document.readable == [0])
        #expect(document.skipped.first?.description.hasPrefix("t.har:\(whole): error: not JSON") == true)
        #expect(document.skipped.first?.warning.hasPrefix("t.har:\(whole): warning: not JSON") == true)
        // Outside the entries too: a broken `creator` is an error, as it was when the HAR was read whole.
        #expect(throws: HARError.self) {
            try HARDocument(Data(#"{"log":{"creator":{"name":},"entries":[]}}"#.utf8), file: "t.har")
        }
        #expect(throws: HARError.self) {
            try HARDocument(Data(#"{"log":{"entries":[\#(Self.entry(1, second: 0))]}} trailing"#.utf8))
        }
    }

    /// Every entry is checked when the document opens: a bad one is named and left out of every trace of it, and
    /// the rest still reads (one bad entry does not poison the HAR).
    @Test func aBadEntryIsSkippedBeforeAnythingIsRead() throws {
        let bad = Self.entry(3, second: 2).replacingOccurrences(of: #""status":200"#, with: #""status":"ok""#)
        let text = #"{"log":{"entries":[\#(Self.entry(1, second: 0)),\#(bad),\#(Self.entry(2, second: 1))]}}"#
        let document = try HARDocument(Data(text.utf8), file: "t.har")
        #expect(document.readable == [0, 2])
        #expect(document.skippedCount == 1)
        #expect(document.skipped.first?.description.hasPrefix("t.har: error: $.log.entries[1].response.status") == true)
        #expect(document.startOrder == [0, 2])
        #expect(try document.records().all().count == 2)
        #expect(try importedHAR(Data(text.utf8), file: "t.har").count == 2)
    }
}
