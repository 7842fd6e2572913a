import ConformCore
import ConformTestSupport
import Foundation
import Testing

@testable import ConformTraffic

@Suite struct SecretScannerTests {
    @Test func findsEveryKindInAnUnredactedRecording() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try RecordingWriter(directory: dir, redaction: .disabled)
        for e in RedactionTests.seededExchanges() {
            try writer.write(e)
        }
        writer.close()
        let findings = try SecretScanner().scan(paths: [dir])
        let kinds = Set(findings.map(\.kind))
        #expect(kinds == [.email, .phone, .authorization, .jwt, .pushToken])
        for f in findings {
            #expect(f.file == dir + "/exchanges.jsonl")
            #expect(!f.description.contains(RedactionTests.email))
            #expect(f.description.contains("help: "))
        }
    }

    @Test func reportsLineAndColumn() {
        let text = """
            {
              "emails": [{"address": "ana@corp.example"}],
              "phones": [{"number": "385981234567"}],
              "ok": "user-1a2b@redacted.invalid", "n": {"number": "0001234567"},
              "auth": "App 4f1c9e0b7a2d", "kept": "App conform-app-code", "prose": "App Profile"
            }
            """
        let findings = SecretScanner().scan(text: text, file: "x.json")
        #expect(
            findings.map { "\($0.line):\($0.column) \($0.kind.rawValue)" } == [
                "2:27 email address", "3:26 phone number", "5:16 App authorization value",
            ])
        #expect(
            findings[0].description
                == "x.json:2:27: error: unredacted email address 'ana********'\nhelp: replace it by a pseudonym such as user-1234@redacted.invalid"
        )
    }

    /// Packing a HAR hides nothing: a `.har.gz` is scanned as the HAR it holds, with the same lines and columns.
    @Test func aCompressedHARIsScannedAsTheHARItHolds() throws {
        let plain = try SecretScanner().scan(file: fixturePath("real/playwright-embed.json"))
        let packed = try SecretScanner().scan(file: fixturePath("real/playwright-embed.har.gz"))
        #expect(!plain.isEmpty)
        #expect(packed.map { [$0.line, $0.column] } == plain.map { [$0.line, $0.column] })
        #expect(packed.map(\.kind) == plain.map(\.kind))
        #expect(packed.allSatisfy { $0.file.hasSuffix("playwright-embed.har.gz") })
    }

    @Test func missingPathIsAnError() {
        #expect(throws: RecordingError.self) { try SecretScanner().scan(paths: ["/nonexistent/conform"]) }
    }
}
