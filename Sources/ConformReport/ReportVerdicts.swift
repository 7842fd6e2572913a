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
