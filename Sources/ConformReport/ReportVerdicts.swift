import Foundation
import Synchronization

/// What a written JUnit or HTML report says of a run's verdict, item by item in document order: for JUnit the
/// run's and each suite's counts and each test case's outcome; for HTML the title, the headline, the counts, each
/// suite's verdict in the matrix and the matrix's total. `conform verify` reads these from a bundle's reports and
/// from the reports of the run it judged again, and compares them (``differences(written:judged:)``).
///
/// The text is read as it streams, one tag at a time (a tag longer than ``maxTagBytes`` is an item of its own, so
/// it differs), so a report of any size is read in bounded memory. Comments, CDATA sections and the contents of
/// `<script>` and `<style>` are not text a reader sees and are passed over as a browser or XML reader does. Values
/// are compared as written (escaped), so a headline spelled with character references differs too.
public struct ReportVerdicts: Sendable, Hashable {
    /// One thing the report says: `what` (`the headline`, `suite login`) and what it says of it.
    public struct Item: Sendable, Hashable {
        public var what: String
        public var says: String

        public init(_ what: String, _ says: String) {
            self.what = what
            self.says = says
        }
    }

    /// The formats read.
    public enum Format: Sendable, Hashable {
        case junit
        case html
    }

    public var items: [Item] = []

    /// The longest tag and the most text of one item read; what is longer is cut (tag) or left out (text).
    public static let maxTagBytes = 64 * 1024
    public static let maxTextBytes = 4 * 1024

    public init(items: [Item] = []) { self.items = items }

    /// The items of `text`, a whole report.
    public static func read(_ text: String, format: Format) -> ReportVerdicts {
        var scanner = Scanner(format: format)
        var text = text
        text.withUTF8 { scanner.feed(UnsafeRawBufferPointer($0)) }
        return scanner.finish()
    }

    /// The items of the report `reporter` writes for `result`, read as it is written (never held whole).
    public static func rendered(_ result: RunResult, by reporter: some DocumentReporter, format: Format)
        -> ReportVerdicts
    {
        let sink = ScanningSink(format: format)
        reporter.write(result, to: sink)
        return sink.finish()
    }

    /// Where `written` (a bundle's report) and `judged` (the same report of the run judged again) differ, item by
    /// item in document order: `what: the report says X, judged again Y`.
    public static func differences(written: ReportVerdicts, judged: ReportVerdicts) -> [String] {
        var out: [String] = []
        for i in 0..<max(written.items.count, judged.items.count) {
            let a = i < written.items.count ? written.items[i] : nil
            let b = i < judged.items.count ? judged.items[i] : nil
            switch (a, b) {
            case (let a?, let b?) where a == b: continue
            case (let a?, let b?) where a.what == b.what:
                out.append("\(a.what): the report says \(a.says), judged again \(b.says)")
            case (let a?, let b?):
                out.append("the report says \(a.what): \(a.says), judged again \(b.what): \(b.says)")
            case (let a?, nil): out.append("\(a.what): the report says \(a.says), judged again nothing")
            case (nil, let b?): out.append("\(b.what): the report says nothing, judged again \(b.says)")
            case (nil, nil): continue
            }
        }
        return out
    }

    /// Reads a report's bytes as they come: ``feed(_:)`` as often as needed, then ``finish()``.
    public struct Scanner: Sendable {
        enum State: Sendable {
            case text
            case tag
            case comment
            case cdata
            /// Inside `<script>` or `<style>`, until `</name`.
            case raw([UInt8])
        }

        let format: Format
        var state = State.text
        var tag: [UInt8] = []
        var tagTooLong = false
        /// The last bytes seen inside a comment, CDATA section or raw element, to find its end.
        var tail: [UInt8] = []
        var verdicts = ReportVerdicts()
        var reading = Reading()

        static let commentStart = Array("!--".utf8), commentEnd = Array("-->".utf8)
        static let cdataStart = Array("![CDATA[".utf8), cdataEnd = Array("]]>".utf8)

        public init(format: Format) { self.format = format }

        public mutating func feed(_ bytes: some Sequence<UInt8>) {
            let array = Array(bytes)
            array.withUnsafeBytes { feed($0) }
        }

        /// Reads `bytes`: text outside the items and the insides of comments, CDATA sections and raw elements are
        /// passed over with `memchr`, so a report of a gigabyte is read at the speed of the disk.
        public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress else { return }
            let n = bytes.count
            var i = 0
            func next(_ byte: UInt8, from start: Int) -> Int? {
                memchr(base + start, Int32(byte), n - start).map { base.distance(to: UnsafeRawPointer($0)) }
            }
            while i < n {
                switch state {
                case .text:
                    let end = next(UInt8(ascii: "<"), from: i) ?? n
                    if reading.capture != nil, reading.captured.count < ReportVerdicts.maxTextBytes {
                        let take = min(end - i, ReportVerdicts.maxTextBytes - reading.captured.count)
                        reading.captured.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[i..<(i + take)]))
                    }
                    if end < n { step(bytes[end]) }
                    i = end + 1
                case .comment, .cdata:
                    // The end marker ends at a `>`: only the two bytes before it matter.
                    guard let close = next(UInt8(ascii: ">"), from: i) else {
                        let from = max(i, n - 2)
                        if from > i { tail.removeAll() }
                        for j in from..<n { step(bytes[j]) }
                        i = n
                        continue
                    }
                    let from = max(i, close - 2)
                    if from > i { tail.removeAll() }
                    for j in from...close { step(bytes[j]) }
                    i = close + 1
                case .raw:
                    // While a `<` is among the last bytes, the end tag may be under way: byte by byte.
                    if tail.contains(UInt8(ascii: "<")) {
                        step(bytes[i])
                        i += 1
                        continue
                    }
                    guard let open = next(UInt8(ascii: "<"), from: i) else {
                        tail.removeAll()
                        i = n
                        continue
                    }
                    tail.removeAll()
                    step(bytes[open])
                    i = open + 1
                case .tag:
                    step(bytes[i])
                    i += 1
                }
            }
        }

        public mutating func finish() -> ReportVerdicts {
            if case .tag = state { verdicts.items.append(Item("the end of the report", "an unfinished tag")) }
            return verdicts
        }

        mutating func step(_ byte: UInt8) {
            switch state {
            case .text:
                if byte == UInt8(ascii: "<") {
                    state = .tag
                    tag.removeAll(keepingCapacity: true)
                    tagTooLong = false
                } else {
                    reading.text(byte)
                }
            case .tag:
                if tag.count == 3, tag == Self.commentStart {
                    state = .comment
                    tail = [byte]
                    return
                }
                if tag.count == 8, tag == Self.cdataStart {
                    state = .cdata
                    tail = [byte]
                    return
                }
                guard byte != UInt8(ascii: ">") else {
                    endTag()
                    return
                }
                if tag.count < ReportVerdicts.maxTagBytes { tag.append(byte) } else { tagTooLong = true }
            case .comment: ending(byte, Self.commentEnd)
            case .cdata: ending(byte, Self.cdataEnd)
            case .raw(let end): ending(byte, end, caseInsensitive: true)
            }
        }

        /// Keeps the last bytes of a comment, CDATA section or raw element; back to text at `end` (for a raw
        /// element, its end tag is then read as a tag).
        mutating func ending(_ byte: UInt8, _ marker: [UInt8], caseInsensitive: Bool = false) {
            let lowered = caseInsensitive && byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
            tail.append(lowered)
            if tail.count > marker.count { tail.removeFirst(tail.count - marker.count) }
            guard tail == marker else { return }
            tail.removeAll()
            if case .raw = state {
                state = .tag
                tag = Array(marker.dropFirst())
                tagTooLong = false
            } else {
                state = .text
            }
        }

        mutating func endTag() {
            state = .text
            if tagTooLong {
                verdicts.items.append(Item("a tag", "longer than \(ReportVerdicts.maxTagBytes) bytes"))
                return
            }
            guard let parsed = ParsedTag(tag) else { return }
            switch format {
            case .junit: reading.junit(parsed, into: &verdicts)
            case .html: reading.html(parsed, into: &verdicts)
            }
            if format == .html, !parsed.closing, !parsed.selfClosing, parsed.name == "script" || parsed.name == "style"
            {
                state = .raw(Array("</\(parsed.name)".utf8))
                tail.removeAll()
            }
        }
    }

    /// A start or end tag: its name in lower case and its attributes as written (values still escaped).
    struct ParsedTag {
        var name: String
        var closing: Bool
        var selfClosing: Bool
        var attributes: [String: String]

        /// `nil` for a declaration or processing instruction (`<!DOCTYPE …>`, `<?xml …?>`).
        init?(_ bytes: [UInt8]) {
            var text = Substring(String(decoding: bytes, as: UTF8.self))
            guard let first = text.first, first != "!", first != "?" else { return nil }
            closing = first == "/"
            if closing { text = text.dropFirst() }
            selfClosing = text.hasSuffix("/")
            if selfClosing { text = text.dropLast() }
            let nameEnd = text.firstIndex { $0.isWhitespace } ?? text.endIndex
            name = text[..<nameEnd].lowercased()
            attributes = [:]
            var rest = text[nameEnd...]
            while true {
                rest = rest.drop { $0.isWhitespace }
                guard !rest.isEmpty else { break }
                let keyEnd = rest.firstIndex { $0 == "=" || $0.isWhitespace } ?? rest.endIndex
                let key = rest[..<keyEnd].lowercased()
                rest = rest[keyEnd...].drop { $0.isWhitespace }
                guard rest.first == "=" else {
                    attributes[key] = attributes[key] ?? ""
                    continue
                }
                rest = rest.dropFirst().drop { $0.isWhitespace }
                let value: Substring
                if let quote = rest.first, quote == "\"" || quote == "'" {
                    let body = rest.dropFirst()
                    let close = body.firstIndex(of: quote) ?? body.endIndex
                    value = body[..<close]
                    rest = close < body.endIndex ? body[body.index(after: close)...] : body[close...]
                } else {
                    let close = rest.firstIndex { $0.isWhitespace } ?? rest.endIndex
                    value = rest[..<close]
                    rest = rest[close...]
                }
                // The first of two attributes of one name counts, as in HTML.
                attributes[key] = attributes[key] ?? String(value)
            }
        }
    }

    /// What the reading of one format remembers between tags.
    struct Reading: Sendable {
        /// The item whose text is being gathered (`nil`: text is passed over), the element that ends it, and
        /// the text so far.
        var capture: (what: String, prefix: String, until: String)?
        var captured: [UInt8] = []
        /// JUnit: the test case open, and the outcomes its children give.
        var testCase: String?
        var outcomes: [String] = []
        /// HTML: inside the counts list.
        var inCounts = false

        mutating func text(_ byte: UInt8) {
            guard capture != nil, captured.count < ReportVerdicts.maxTextBytes else { return }
            captured.append(byte)
        }

        mutating func start(_ what: String, prefix: String = "", until: String) {
            capture = (what, prefix, until)
            captured.removeAll(keepingCapacity: true)
        }

        /// The text gathered, its runs of white space made one space, trimmed.
        func gathered() -> String {
            String(decoding: captured, as: UTF8.self).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }

        /// While gathering, a tag inside separates the texts on either side.
        mutating func separate() {
            if capture != nil, captured.last != 0x20, captured.count < ReportVerdicts.maxTextBytes {
                captured.append(0x20)
            }
        }

        mutating func junit(_ tag: ParsedTag, into verdicts: inout ReportVerdicts) {
            let a = tag.attributes
            if tag.closing {
                if let capture, tag.name == capture.until {
                    if gathered().hasPrefix("assumption not met") { outcomes.append("assumption not met") }
                    self.capture = nil
                }
                if tag.name == "testcase", let name = testCase {
                    verdicts.items.append(Item(name, outcomes.isEmpty ? "pass" : outcomes.joined(separator: ", ")))
                    testCase = nil
                }
                return
            }
            switch tag.name {
            case "testsuites":
                verdicts.items.append(
                    Item(
                        "the run",
                        "\(a["name"] ?? "no name"): tests=\(a["tests"] ?? "none") failures=\(a["failures"] ?? "none") errors=\(a["errors"] ?? "none")"
                    ))
            case "testsuite":
                verdicts.items.append(
                    Item(
                        "suite \(a["name"] ?? "")",
                        "tests=\(a["tests"] ?? "none") failures=\(a["failures"] ?? "none") errors=\(a["errors"] ?? "none") skipped=\(a["skipped"] ?? "none")"
                    ))
            case "testcase":
                let name = "test case \(a["classname"] ?? "") › \(a["name"] ?? "")"
                if tag.selfClosing {
                    verdicts.items.append(Item(name, "pass"))
                } else {
                    testCase = name
                    outcomes = []
                }
            case "failure", "error", "skipped":
                if testCase != nil { outcomes.append(tag.name) }
            case "system-out" where testCase != nil && !tag.selfClosing:
                start("system-out", until: "system-out")
            default: break
            }
        }

        mutating func html(_ tag: ParsedTag, into verdicts: inout ReportVerdicts) {
            let a = tag.attributes
            if tag.closing {
                if let capture, tag.name == capture.until {
                    verdicts.items.append(Item(capture.what, capture.prefix + gathered()))
                    self.capture = nil
                } else {
                    separate()
                }
                if tag.name == "ul" { inCounts = false }
                return
            }
            guard capture == nil else {
                separate()
                return
            }
            let classes = a["class"] ?? ""
            switch tag.name {
            case "title": start("the title", until: "title")
            case "p" where a["id"] == "overall" || classes.split(separator: " ").contains("overall"):
                start("the headline", prefix: "(\(classes)) ", until: "p")
            case "ul" where classes.split(separator: " ").contains("counts"): inCounts = true
            case "li" where inCounts: start("a count", prefix: "(\(classes)) ", until: "li")
            case "tr" where a["data-suite"] != nil:
                verdicts.items.append(Item("suite \(a["data-suite"] ?? "")", a["data-verdict"] ?? "no verdict"))
            case "tfoot": start("the matrix's total", until: "tfoot")
            default: break
            }
        }
    }
}

/// A sink that reads a report for its verdicts as a reporter writes it.
final class ScanningSink: TextSink {
    private let scanner: Mutex<ReportVerdicts.Scanner>

    init(format: ReportVerdicts.Format) { scanner = Mutex(ReportVerdicts.Scanner(format: format)) }

    func write(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in scanner.withLock { $0.feed(UnsafeRawBufferPointer(utf8)) } }
    }

    func finish() -> ReportVerdicts { scanner.withLock { $0.finish() } }
}
