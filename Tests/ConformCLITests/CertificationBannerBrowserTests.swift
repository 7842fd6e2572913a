import ConformCore
import ConformTestSupport
import Foundation
import Testing

/// The certification banner as a reader sees it in Chromium: on the first screen, saying partial with the
/// selection and "N of M bundled suites", or certifiable; a screenshot of each is kept in the temporary directory.
@Suite(.serialized) struct CertificationBannerBrowserTests {
    /// Reads the banner's text and place on the laid-out page into `<pre id="conform-probe">`.
    static let probeScript = """
        (function () {
          var banner = document.getElementById("certification");
          var r = banner ? banner.getBoundingClientRect() : {top: -1, height: 0, width: 0};
          var out = document.createElement("pre");
          out.id = "conform-probe";
          out.textContent = JSON.stringify({
            text: banner ? banner.innerText : "", top: r.top, height: r.height, width: r.width,
            background: banner ? getComputedStyle(banner).backgroundColor : ""
          });
          document.body.appendChild(out);
        })();
        """

    /// The banner of the run of `args`, probed in Chromium, and a screenshot of its page at `screenshot`.
    func banner(_ args: [String], screenshot: String) async throws -> JSONValue? {
        guard let chromium = Chromium.binary() else {
            Issue.record(Comment(rawValue: Chromium.installHelp))
            return nil
        }
        let scratch = try Scratch()
        let page = scratch.url.appendingPathComponent("report.html")
        let run = await conformInProcess(args + ["--no-color", "--report", "html:\(page.path)"])
        #expect(run.code == 0, "\(run.out)\(run.err)")
        let html = try String(contentsOf: page, encoding: .utf8)
        let probe = scratch.url.appendingPathComponent("probe.html")
        try Data(html.replacingOccurrences(of: "</body>", with: "<script>\(Self.probeScript)</script>\n</body>").utf8)
            .write(to: probe)
        let dom = try await offThePool {
            try Chromium.run(chromium, ["--window-size=1280,1000", "--dump-dom"], page: probe, work: scratch.url)
        }
        let png = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(screenshot)
        _ = try await offThePool {
            try Chromium.run(
                chromium, ["--window-size=1280,1000", "--screenshot=\(png.path)"], page: page, work: scratch.url)
        }
        let shot = try #require(FileManager.default.contents(atPath: png.path), "chromium wrote no screenshot")
        #expect(Array(shot.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "not a PNG")
        #expect(shot.count > 30_000, "the screenshot is \(shot.count) bytes: the page looks blank")
        let start = try #require(dom.range(of: "<pre id=\"conform-probe\">"), "the probe did not run")
        let end = try #require(dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex))
        let json = String(dom[start.upperBound..<end.lowerBound])
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&quot;", with: "\"")
        return try JSONValue.parse(json)
    }

    func number(_ value: JSONValue?) -> Double {
        switch value {
        case .int(let i): Double(i)
        case .double(let d): d
        default: -1
        }
    }

    @Test func aPartialRunsBannerShowsTheSelectionOnTheFirstScreen() async throws {
        guard
            let probe = try await banner(
                ["run", "suites/02-login.yaml", "--step", "log in from*"], screenshot: "conform-banner-partial.png")
        else { return }
        let text = probe["text"]?.stringValue ?? ""
        #expect(text.contains("Partial run: this report is not a certificate."), "\(text)")
        #expect(text.contains("selection: --step 'log in from*'"), "\(text)")
        #expect(text.contains("1 of 24 bundled suites"), "\(text)")
        #expect(number(probe["top"]) > 0 && number(probe["top"]) < 1000, "on the first screen: \(probe)")
        #expect(number(probe["height"]) > 40 && number(probe["width"]) > 600)
        #expect(probe["background"] == "rgb(255, 241, 194)", "the assumption colour marks it")
    }

    @Test func aWholeRunsBannerSaysCertifiable() async throws {
        guard let probe = try await banner(["run"], screenshot: "conform-banner-certifiable.png") else { return }
        let text = probe["text"]?.stringValue ?? ""
        #expect(text.contains("Certifiable run: the whole bundled plan ran against one target"), "\(text)")
        #expect(text.contains("24 of 24 bundled suites"), "\(text)")
        #expect(number(probe["top"]) > 0 && number(probe["top"]) < 1000)
        #expect(probe["background"] == "rgb(218, 251, 225)")
    }
}
