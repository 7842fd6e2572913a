import Foundation
import Testing

@testable import ConformCurl

/// A response's status line is read on its bytes when it is ASCII: the code must be the one the split of the line
/// into words on spaces gives, whatever the spacing, and a line with other bytes takes that split itself.
@Suite struct ResponseSinkTests {
    @Test(arguments: [
        "HTTP/1.1 200 OK", "HTTP/1.1 404", "HTTP/1.1  201  Created ", "HTTP/1.1\t200 OK", "HTTP/1.1 200\t",
        "HTTP/1.1 +204 No", "HTTP/1.1 -1 x", "HTTP/1.1 2x0 OK", "HTTP/1.1", "HTTP/1.1 ", "HTTP/2 302 ",
        "HTTP/1.1 99999999999999999999 OK", "HTTP/1.1 200 é", "HTTP/1.1 é 200", "HTTP/1.1 \u{301}200 OK",
    ])
    func theStatusCodeIsTheSecondWord(line: String) {
        let sink = ResponseSink(cancelled: CancelFlag())
        Array((line + "\r\n").utf8).withUnsafeBytes { _ = sink.header($0) }
        let words = line.trimmingCharacters(in: [" ", "\t"]).split(separator: " ", maxSplits: 2)
        #expect(sink.status == (words.count >= 2 ? Int(words[1]) : nil), "\(line.debugDescription)")
        if line.utf8.allSatisfy({ $0 < 0x80 }) {
            #expect(Array(line.utf8).withUnsafeBytes { ResponseSink.statusCode(ascii: $0) } == sink.status)
        }
    }

    @Test func aStatusLineStartsAFreshHeaderBlock() {
        let sink = ResponseSink(cancelled: CancelFlag())
        for line in ["HTTP/1.1 100 Continue", "X-Early: 1", "HTTP/1.1 200 OK", "Content-Type: text/plain"] {
            Array((line + "\r\n").utf8).withUnsafeBytes { _ = sink.header($0) }
        }
        #expect(sink.status == 200)
        #expect(sink.headers.map(\.name) == ["Content-Type"])
        #expect(sink.headers.map(\.value) == ["text/plain"])
    }
}
