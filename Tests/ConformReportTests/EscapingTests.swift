import ConformReport
import Foundation
import FoundationXML
import Testing

/// One escaper per format the reporters and the man page write.
@Suite struct EscapingTests {
    @Test func xmlEscapesMarkupAndBothQuotes() {
        #expect(Escaping.xml(#"a & b < c > d "e" 'f'"#) == "a &amp; b &lt; c &gt; d &quot;e&quot; &apos;f&apos;")
        #expect(Escaping.xml("&amp;") == "&amp;amp;", "escaped text is escaped again, never taken as markup")
        #expect(Escaping.xml("café 🎉") == "café 🎉")
    }

    @Test func xmlKeepsWhitespaceAndReplacesWhatXMLCannotCarry() {
        #expect(Escaping.xml("a\tb\nc\rd") == "a\tb\nc\rd")
        #expect(Escaping.xml("\u{0}\u{1}\u{7}\u{1B}[31m\u{1F}") == "????[31m?")
        #expect(Escaping.xml("\u{FFFE}\u{FFFF}") == "??")
        #expect(Escaping.xml("\u{7F}\u{85}") == "\u{7F}\u{85}", "XML 1.0 allows DEL and C1 characters")
    }

    @Test func xmlOutputParsesBackToTheTextInAttributesAndContent() throws {
        let hostile = "</r><!-- \"q\" 'a' & &amp; \u{1B}[0m \u{FFFF} ]]> 🎉"
        let document = "<r a=\"\(Escaping.xml(hostile))\" b='\(Escaping.xml(hostile))'>\(Escaping.xml(hostile))</r>"
        let parsed = try #require(ParsedElement(document))
        let expected = "</r><!-- \"q\" 'a' & &amp; ?[0m ? ]]> 🎉"
        #expect(parsed.attributes == ["a": expected, "b": expected])
        #expect(parsed.text == expected)
    }

    @Test func htmlEscapesMarkupAndBothQuotes() {
        #expect(
            Escaping.html(#"<script>alert('x')</script>"&amp;"#)
                == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;amp;")
        #expect(Escaping.html("café 🎉") == "café 🎉")
    }

    @Test func htmlKeepsTabsAndNewlinesAndNeutralisesControls() {
        #expect(Escaping.html("a\tb\nc\r\nd") == "a\tb\nc\nd")
        #expect(Escaping.html("\u{0}\u{7}\u{1B}[31m") == "\u{FFFD}\u{FFFD}\u{FFFD}[31m")
        #expect(Escaping.html("\u{7F}\u{85}\u{9F}\u{A0}") == "\u{FFFD}\u{FFFD}\u{FFFD}\u{A0}")
    }

    /// The bidirectional controls show as the console shows them, in HTML and XML alike; other text is kept.
    @Test func htmlAndXMLShowBidirectionalControlsAsTheConsoleDoes() {
        let text = "file\u{202E}txt.exe \u{2066}a\u{2069} \u{200F}\u{061C} שלום"
        let shown = #"file\u{202e}txt.exe \u{2066}a\u{2069} \u{200f}\u{061c} שלום"#
        #expect(Escaping.html(text) == shown)
        #expect(Escaping.xml(text) == shown)
        #expect(Escaping.terminal(text) == shown)
    }

    @Test func roffEscapesBackslashesHyphensAndNonASCII() {
        #expect(Escaping.roff(#"--var C:\path"#) == #"\-\-var C:\epath"#)
        #expect(Escaping.roff("café 🎉") == #"caf\[u00E9] \[u1F389]"#)
        #expect(Escaping.roff(#"\fB bold"#) == #"\efB bold"#, "a font escape in text stays text")
        #expect(Escaping.roff("a\u{7}b\u{1B}c") == #"a\[uFFFD]b\[uFFFD]c"#)
        #expect(Escaping.roff("it's \"quoted\"") == "it's \"quoted\"")
    }

    @Test func roffTextKeepsLinesThatStartWithAControlCharacterText() {
        #expect(
            Escaping.roffText(".TH INJECTED\n'br\nplain .dot\n\n. ") == "\\&.TH INJECTED\n\\&'br\nplain .dot\n\\&. ")
        #expect(Escaping.roffText("a-b\n-c") == "a\\-b\n\\-c")
    }
}

/// The root element of a small XML document, read by Foundation's parser.
private final class ParsedElement: NSObject, XMLParserDelegate {
    var attributes: [String: String] = [:]
    var text = ""

    init?(_ document: String) {
        super.init()
        let parser = XMLParser(data: Data(document.utf8))
        parser.delegate = self
        guard parser.parse() else { return nil }
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        attributes = attributeDict
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
}
