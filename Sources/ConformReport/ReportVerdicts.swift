import Foundation
import Synchronization

/// What a written JUnit or HTML report says of a run's verdict, item by item in document order: for JUnit the
/// run's and each suite's counts, each test case's outcome and the certification; for HTML the title, the
/// headline, the counts, each suite's verdict in the matrix, the matrix's total, every element styled as a verdict
/// (`v-…`) and every badge, the certification, the page's scripts and styles, and any markup the writer never
/// writes (``Reading/foreign(_:into:)``). `conform verify` reads these from a bundle's reports and from the reports
/// of the run it judged again, and compares them (``differences(written:judged:)``).
///
/// The text is read as it streams, one tag at a time (a tag longer than ``maxTagBytes`` is an item of its own, so
/// it differs), so a report of any size is read in bounded memory. Comments and CDATA sections are not text a
/// reader sees and are passed over as a browser or XML reader does. Values are compared as written (escaped), so a
/// headline spelled with character references differs too.
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

    /// What the items of the certification (certifiable or partial, and why) are named: they follow from the kit's
    /// own bundled suites, so only the kit that wrote a report can judge them the same.
    public static let certificationItems: Set<String> = ["the certification", "the certification's reasons"]

    /// The longest tag and the most text of one item read; what is longer is cut (tag) or left out (text).
    public static let maxTagBytes = 64 * 1024
    public static let maxTextBytes = 4 * 1024
    /// The most of a `<script>` or `<style>` compared (the writer's are a few KiB); a longer one differs.
    public static let maxRawBytes = 256 * 1024

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
    /// item in document order: `what: the report says X, judged again Y`. An item only one of them holds (one
    /// added, one taken out) is named alone, and the comparison goes on in step after it.
    public static func differences(written: ReportVerdicts, judged: ReportVerdicts) -> [String] {
        let a = written.items, b = judged.items
        var out: [String] = []
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                i += 1
                j += 1
            } else if i < a.count, j < b.count, a[i].what == b[j].what {
                out.append("\(a[i].what): the report says \(shown(a[i].says)), judged again \(shown(b[j].says))")
                i += 1
                j += 1
            } else if i < a.count, j >= b.count || (i + 1 < a.count && a[i + 1] == b[j]) {
                out.append("\(a[i].what): the report says \(shown(a[i].says)), judged again nothing")
                i += 1
            } else if j < b.count, i >= a.count || (j + 1 < b.count && a[i] == b[j + 1]) {
                out.append("\(b[j].what): the report says nothing, judged again \(shown(b[j].says))")
                j += 1
            } else {
                out.append(
                    "the report says \(a[i].what): \(shown(a[i].says)), judged again \(b[j].what): \(shown(b[j].says))")
                i += 1
                j += 1
            }
        }
        return out
    }

    /// `says` as a message shows it: a long one (a script, a style sheet) by its start and size.
    static func shown(_ says: String) -> String {
        says.utf8.count <= 120 ? says : "'\(says.prefix(40))…' (\(says.utf8.count) bytes)"
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
        /// The content of the `<script>` or `<style>` being read, up to ``ReportVerdicts/maxRawBytes`` (and one
        /// byte more, to tell a longer one).
        var raw: [UInt8] = []
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
                    let open = next(UInt8(ascii: "<"), from: i) ?? n
                    keepRaw(UnsafeRawBufferPointer(rebasing: bytes[i..<open]))
                    tail.removeAll()
                    if open < n { step(bytes[open]) }
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
            case .raw(let end):
                keepRaw(CollectionOfOne(byte))
                ending(byte, end, caseInsensitive: true)
            }
        }

        mutating func keepRaw(_ bytes: some Collection<UInt8>) {
            let room = ReportVerdicts.maxRawBytes + 1 - raw.count
            if room > 0 { raw.append(contentsOf: bytes.prefix(room)) }
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
                // The content without its end marker, which was kept with it.
                let name = String(decoding: marker.dropFirst(2), as: UTF8.self)
                let content =
                    raw.count > ReportVerdicts.maxRawBytes
                    ? "longer than \(ReportVerdicts.maxRawBytes) bytes"
                    : String(decoding: raw.dropLast(min(raw.count, marker.count)), as: UTF8.self)
                verdicts.items.append(Item("a \(name)", content))
                raw.removeAll()
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
                raw.removeAll()
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
        /// Elements of the capture's own name opened inside it, so that a nested one does not end it.
        var depth = 0
        var captured: [UInt8] = []
        /// JUnit: the test case open, and the outcomes its children give.
        var testCase: String?
        var outcomes: [String] = []
        /// HTML: inside the counts list.
        var inCounts = false
        /// HTML: the fact being named (a `<dt>`'s text, gathered without an item), and whether the next `<dd>` is
        /// the product's.
        static let factName = ""
        var productNext = false

        mutating func text(_ byte: UInt8) {
            guard capture != nil, captured.count < ReportVerdicts.maxTextBytes else { return }
            captured.append(byte)
        }

        mutating func start(_ what: String, prefix: String = "", until: String) {
            capture = (what, prefix, until)
            depth = 0
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
            case "property" where ["certification", "partialReasons"].contains(a["name"] ?? ""):
                verdicts.items.append(
                    Item(
                        a["name"] == "certification" ? "the certification" : "the certification's reasons",
                        a["value"] ?? ""))
            case "property" where ["product", "productVersion"].contains(a["name"] ?? ""):
                verdicts.items.append(
                    Item(a["name"] == "product" ? "the product" : "the product's version", a["value"] ?? ""))
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

        /// Elements the HTML writer never writes: they embed, load or run something, or send the page elsewhere.
        static let foreignElements: Set<String> = [
            "iframe", "frame", "frameset", "object", "embed", "base", "link", "form", "template", "svg", "math", "img",
            "video", "audio", "canvas", "noscript",
        ]

        mutating func html(_ tag: ParsedTag, into verdicts: inout ReportVerdicts) {
            let a = tag.attributes
            if tag.closing {
                if let capture, tag.name == capture.until, depth == 0 {
                    if capture.what == Self.factName {
                        productNext = gathered() == "Product"
                    } else {
                        verdicts.items.append(Item(capture.what, capture.prefix + gathered()))
                    }
                    self.capture = nil
                } else {
                    if tag.name == capture?.until { depth -= 1 }
                    separate()
                }
                if tag.name == "ul" { inCounts = false }
                return
            }
            Self.foreign(tag, into: &verdicts)
            guard capture == nil else {
                if tag.name == capture?.until, !tag.selfClosing { depth += 1 }
                separate()
                return
            }
            let classes = (a["class"] ?? "").split(whereSeparator: \.isWhitespace)
            let shownClasses = classes.joined(separator: " ")
            // Every element the page styles as a verdict (a step, a suite, a cell, a badge), in order.
            if classes.contains(where: { $0.hasPrefix("v-") }) {
                verdicts.items.append(Item("an element marked as a verdict", "<\(tag.name) class=\"\(shownClasses)\">"))
            }
            switch tag.name {
            case "title": start("the title", until: "title")
            case _ where a["id"] == "overall" || classes.contains("overall"):
                start("the headline", prefix: "(\(shownClasses)) ", until: tag.name)
            case "ul" where classes.contains("counts"): inCounts = true
            case "li" where inCounts: start("a count", prefix: "(\(shownClasses)) ", until: "li")
            case "tr" where a["data-suite"] != nil:
                verdicts.items.append(Item("suite \(a["data-suite"] ?? "")", a["data-verdict"] ?? "no verdict"))
            case "tfoot": start("the matrix's total", until: "tfoot")
            case "dt": start(Self.factName, until: "dt")
            case "dd" where productNext:
                productNext = false
                start("the product", until: "dd")
            case "section" where classes.contains("certification"):
                verdicts.items.append(Item("the certification", "<section class=\"\(shownClasses)\">"))
            case _ where classes.contains("certification-title"):
                start("the certification's reasons", until: tag.name)
            case _ where classes.contains("badge") && !tag.selfClosing:
                start("a badge", prefix: "(\(shownClasses)) ", until: tag.name)
            default: break
            }
        }

        /// Markup the HTML writer never writes, each an item of its own: an element of ``foreignElements``, a
        /// `<meta http-equiv>`, an event handler (`on…`), a `style` or `hidden` attribute, a `javascript:` link.
        static func foreign(_ tag: ParsedTag, into verdicts: inout ReportVerdicts) {
            if foreignElements.contains(tag.name) || (tag.name == "meta" && tag.attributes["http-equiv"] != nil) {
                verdicts.items.append(Item("markup the page never holds", "<\(tag.name)>"))
            }
            for (name, value) in tag.attributes.sorted(by: { $0.key < $1.key }) {
                let script = value.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("javascript:")
                if name.hasPrefix("on") || name == "style" || name == "hidden" || script {
                    verdicts.items.append(Item("markup the page never holds", "<\(tag.name) \(name)>"))
                }
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
