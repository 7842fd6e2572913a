import ConformCore
import ConformRunner
import ConformTestSupport
import Foundation
import Testing

/// Renders the certification report in headless Chromium and checks what a reader would see.
@Suite(.serialized) struct HTMLReporterBrowserTests {
    static let installHelp = Chromium.installHelp

    static func chromium() -> String? { Chromium.binary() }

    static func runChromium(_ binary: String, _ arguments: [String], page: URL, work: URL) throws -> String {
        try Chromium.run(binary, arguments, page: page, work: work)
    }

    /// A scratch directory with the report of the mixed run written to `report.html`.
    static func writeReport(probe: Bool) async throws -> (page: URL, work: URL) {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("conform-html-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        var html = try await renderCertification()
        if probe {
            html = html.replacingOccurrences(of: "</body>", with: "<script>\(Self.probeScript)</script>\n</body>")
        }
        let page = work.appendingPathComponent(probe ? "probe.html" : "report.html")
        try Data(html.utf8).write(to: page)
        return (page, work)
    }

    /// Measures the laid-out page and writes the figures as JSON into `<pre id="conform-probe">`.
    static let probeScript = """
        (function () {
          var table = document.getElementById("verdict-matrix");
          var r = table ? table.getBoundingClientRect() : {width: 0, height: 0, top: -1, right: 0};
          var rows = table ? Array.prototype.map.call(table.querySelectorAll("tbody tr"), function (tr) {
            var cells = tr.querySelectorAll("th, td");
            return { suite: tr.querySelector("th[scope=row]").innerText.split("\\n")[0], verdict: cells[cells.length - 1].innerText.trim() };
          }) : [];
          var cell = table ? getComputedStyle(table.querySelector("td")) : null;
          var out = document.createElement("pre");
          out.id = "conform-probe";
          out.textContent = JSON.stringify({
            pageWidth: document.documentElement.scrollWidth, viewportWidth: window.innerWidth,
            matrix: { width: r.width, height: r.height, top: r.top, right: r.right },
            fontSize: cell ? parseFloat(cell.fontSize) : 0, rows: rows,
            overall: document.getElementById("overall").innerText.trim(),
            scriptRan: document.documentElement.classList.contains("js")
          });
          document.body.appendChild(out);
        })();
        """

    @Test func verdictMatrixIsThereAndReadableInChromium() async throws {
        guard let chromium = Self.chromium() else {
            Issue.record(Comment(rawValue: Self.installHelp))
            return
        }
        let (page, work) = try await Self.writeReport(probe: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let dom = try await offThePool {
            try Self.runChromium(chromium, ["--window-size=1280,2000", "--dump-dom"], page: page, work: work)
        }

        #expect(dom.contains("<table id=\"verdict-matrix\">"))
        #expect(dom.contains("<th scope=\"rowgroup\" rowspan=\"1\" class=\"flow-step\">1-registration</th>"))
        let start = try #require(
            dom.range(of: "<pre id=\"conform-probe\">"), "the probe did not run; DOM starts: \(dom.prefix(300))")
        let end = try #require(dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex))
        let json = String(dom[start.upperBound..<end.lowerBound])
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
        let probe = try JSONValue.parse(json)
        func value(_ path: String) -> JSONValue? { JSONPath(parsing: path).flatMap { probe[path: $0] } }

        #expect(value("$.scriptRan") == .bool(true))
        #expect(value("$.overall") == .string("! Conformance run — COULD NOT RUN"))
        let rows = value("$.rows")
        #expect(
            rows
                == [
                    ["suite": "registration", "verdict": "~ ASSUMPTION NOT MET"],
                    ["suite": "login-jwt", "verdict": "✘ FAIL"],
                    ["suite": "hygiene", "verdict": "! ERROR"],
                ]
        )
        func number(_ path: String) -> Double {
            switch value(path) {
            case .int(let i): Double(i)
            case .double(let d): d
            default: -1
            }
        }
        // Readable at 1280 px: nothing wider than the window, the matrix on the first screen, text not tiny.
        #expect(number("$.viewportWidth") == 1280)
        #expect(number("$.pageWidth") <= 1280)
        #expect(number("$.matrix.width") > 800)
        #expect(number("$.matrix.right") <= 1280)
        #expect(number("$.matrix.height") > 100)
        #expect(number("$.matrix.top") > 0)
        #expect(number("$.matrix.top") < 1000)
        #expect(number("$.fontSize") >= 12)
    }

    @Test func screenshotHasTheRequestedSizeAndContent() async throws {
        guard let chromium = Self.chromium() else {
            Issue.record(Comment(rawValue: Self.installHelp))
            return
        }
        let (page, work) = try await Self.writeReport(probe: false)
        defer { try? FileManager.default.removeItem(at: work) }
        let png = work.appendingPathComponent("report.png")
        _ = try await offThePool {
            try Self.runChromium(
                chromium, ["--window-size=1280,2000", "--screenshot=\(png.path)"], page: page, work: work)
        }
        let data = try #require(FileManager.default.contents(atPath: png.path), "chromium wrote no screenshot")
        let bytes = [UInt8](data)
        try #require(bytes.count > 33, "the screenshot is too short to be a PNG")
        #expect(Array(bytes[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "not a PNG")
        #expect(String(decoding: bytes[12..<16], as: UTF8.self) == "IHDR")
        func be32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        #expect(be32(16) == 1280)
        #expect(be32(20) == 2000)
        // A blank 1280x2000 page compresses to a few kilobytes; text, tables and colour take far more.
        #expect(bytes.count > 60_000, "the screenshot is \(bytes.count) bytes: the page looks blank")
    }
}
