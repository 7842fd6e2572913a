import ConformCore
import ConformTraffic
import Foundation
import Testing

/// The HTTP version an exchange was spoken in survives a recording line and a HAR, and only known versions are read.
struct HTTPVersionRecordingTests {
    func exchange(_ version: String?) -> RecordedExchange {
        var response = HTTPResponse(status: 200, headerFields: ["Content-Type": "application/json"])
        response.httpVersion = version
        return RecordedExchange(
            seq: 1, flow: "dev", upstream: "mobile", startedAt: Date(timeIntervalSince1970: 0), durationMs: 1,
            request: HTTPRequest(method: .get, url: "/mobile/1/x"), response: response)
    }

    @Test func http2IsWrittenAndReadBackAndHTTP11IsTheDefault() throws {
        let h2 = exchange("HTTP/2").jsonLine()
        #expect(h2.contains(#""response":{"status":200,"httpVersion":"HTTP/2","#))
        #expect(try RecordedExchange(jsonLine: Array(h2.utf8)).response.httpVersion == "HTTP/2")
        let h1 = exchange("HTTP/1.1").jsonLine()
        #expect(!h1.contains("httpVersion"))
        #expect(try RecordedExchange(jsonLine: Array(h1.utf8)).response.httpVersion == nil)
    }

    @Test func anUnknownVersionInALineIsRefusedWithItsPath() {
        let line = exchange("HTTP/2").jsonLine().replacingOccurrences(of: "HTTP/2", with: "SPDY/3")
        #expect {
            _ = try RecordedExchange(jsonLine: Array(line.utf8))
        } throws: { error in
            "\(error)".contains("$.response.httpVersion")
                && "\(error)".contains("expected one of HTTP/1.0, HTTP/1.1, HTTP/2, HTTP/3")
        }
    }

    @Test func aHARNamesTheVersionAndOthersSpellingsAreRead() throws {
        let har = HAR.export([exchange("HTTP/2")])
        let text = String(decoding: har, as: UTF8.self)
        #expect(text.contains(#""httpVersion":"HTTP/2""#))
        #expect(try importedHAR(har).first?.response.httpVersion == "HTTP/2")
        let chrome = text.replacingOccurrences(of: #""httpVersion":"HTTP/2""#, with: #""httpVersion":"h2""#)
        #expect(try importedHAR(Data(chrome.utf8)).first?.response.httpVersion == "HTTP/2")
        let plain = HAR.export([exchange(nil)])
        #expect(String(decoding: plain, as: UTF8.self).contains(#""httpVersion":"HTTP/1.1""#))
        #expect(try importedHAR(plain).first?.response.httpVersion == nil)
    }
}
