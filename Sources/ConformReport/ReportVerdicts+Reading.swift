import Foundation

extension ReportVerdicts {
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
