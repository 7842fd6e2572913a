import ConformReport
import Foundation
import Testing

/// What `conform verify` reads of a JUnit or HTML report: the same items whatever pieces the text arrives in, and
/// nothing from what a reader does not see (comments, CDATA, scripts, styles).
@Suite struct ReportVerdictsTests {
    static let page = """
        <!DOCTYPE html>
        <html><head><title>target: CONFORMS</title>
        <style>p > span { color: red } </STYLE>
        <script>if (a < b) { document.write('<p id="overall">FAKE</p>') }</script>
        </head><body>
        <!-- <p class="overall v-fail" id="overall">hidden</p> -- still a comment -->
        <p class="overall v-pass" id="overall"><span class="symbol">✔</span> CONFORMS</p>
        <ul class="counts"><li class="v-pass"><strong>3</strong> passed</li><li class="v-fail zero"><strong>0</strong>
        failed</li></ul>
        <table><tr data-suite="login" data-verdict="pass"><td>x</td></tr>
        <tfoot><tr><th>All suites</th><td>3</td><td>0</td></tr></tfoot></table>
        </body></html>
        """

    static let expected = [
        ReportVerdicts.Item("the title", "target: CONFORMS"),
        ReportVerdicts.Item("a style", "p > span { color: red } "),
        ReportVerdicts.Item("a script", #"if (a < b) { document.write('<p id="overall">FAKE</p>') }"#),
        ReportVerdicts.Item("an element marked as a verdict", #"<p class="overall v-pass">"#),
        ReportVerdicts.Item("the headline", "(overall v-pass) ✔ CONFORMS"),
        ReportVerdicts.Item("an element marked as a verdict", #"<li class="v-pass">"#),
        ReportVerdicts.Item("a count", "(v-pass) 3 passed"),
        ReportVerdicts.Item("an element marked as a verdict", #"<li class="v-fail zero">"#),
        ReportVerdicts.Item("a count", "(v-fail zero) 0 failed"),
        ReportVerdicts.Item("suite login", "pass"),
        ReportVerdicts.Item("the matrix's total", "All suites 3 0"),
    ]

    @Test func anHTMLPageGivesItsHeadlineCountsAndSuitesAndNothingHidden() {
        #expect(ReportVerdicts.read(Self.page, format: .html).items == Self.expected)
    }

    @Test func theItemsDoNotDependOnThePiecesTheTextArrivesIn() {
        let bytes = Array(Self.page.utf8)
        for size in [1, 2, 3, 7, 64] {
            var scanner = ReportVerdicts.Scanner(format: .html)
            var start = 0
            while start < bytes.count {
                let piece = Array(bytes[start..<min(bytes.count, start + size)])
                piece.withUnsafeBytes { scanner.feed($0) }
                start += size
            }
            #expect(scanner.finish().items == Self.expected, "pieces of \(size) bytes")
        }
    }

    @Test func aJUnitReportGivesItsCountsAndEachCasesOutcome() {
        let junit = """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="Conform: DOES NOT CONFORM" tests="4" failures="1" errors="0" time="1.0">
              <testsuite name="login" tests="4" failures="1" errors="0" skipped="1" time="1.0" file="f">
                <testcase classname="login.main" name="1. a" time="0"/>
                <testcase classname="login.main" name="2. b" time="0">
                  <failure message="x" type="must"><![CDATA[<error/>]]>details</failure>
                </testcase>
                <testcase classname="login.main" name="3. c" time="0">
                  <skipped message="y">at</skipped>
                </testcase>
                <testcase classname="login.main" name="4. d" time="0">
                  <system-out>assumption not met
            why</system-out>
                </testcase>
              </testsuite>
            </testsuites>
            """
        #expect(
            ReportVerdicts.read(junit, format: .junit).items == [
                .init("the run", "Conform: DOES NOT CONFORM: tests=4 failures=1 errors=0"),
                .init("suite login", "tests=4 failures=1 errors=0 skipped=1"),
                .init("test case login.main › 1. a", "pass"),
                .init("test case login.main › 2. b", "failure"),
                .init("test case login.main › 3. c", "skipped"),
                .init("test case login.main › 4. d", "assumption not met"),
            ])
    }

    @Test func markupThePageNeverHoldsIsAnItemOfItsOwn() {
        let page = """
            <p class="overall v-fail" id="overall" hidden>x</p><img src=x onerror="alert(1)">
            <a href=" JavaScript:go()">y</a><meta http-equiv="refresh" content="0;url=elsewhere">
            """
        #expect(
            ReportVerdicts.read(page, format: .html).items.filter { $0.what == "markup the page never holds" }.map(
                \.says) == ["<p hidden>", "<img>", "<img onerror>", "<a href>", "<meta>"])
    }

    @Test func anItemAddedOrTakenOutIsNamedAloneAndTheRestComparedInStep() {
        let judged = ReportVerdicts(items: [.init("x", "1"), .init("y", "2"), .init("z", "3")])
        let added = ReportVerdicts(items: [
            .init("x", "1"), .init("a script", "go()"), .init("y", "2"), .init("z", "3"),
        ])
        #expect(
            ReportVerdicts.differences(written: added, judged: judged) == [
                "a script: the report says go(), judged again nothing"
            ])
        let takenOut = ReportVerdicts(items: [.init("x", "1"), .init("z", "3")])
        #expect(
            ReportVerdicts.differences(written: takenOut, judged: judged) == [
                "y: the report says nothing, judged again 2"
            ])
    }

    @Test func differencesNameWhatTheReportSaysAndWhatWasJudgedAgain() {
        let written = ReportVerdicts(items: [.init("the headline", "CONFORMS"), .init("suite a", "pass")])
        let judged = ReportVerdicts(items: [.init("the headline", "DOES NOT CONFORM")])
        #expect(
            ReportVerdicts.differences(written: written, judged: judged) == [
                "the headline: the report says CONFORMS, judged again DOES NOT CONFORM",
                "suite a: the report says pass, judged again nothing",
            ])
    }
}
