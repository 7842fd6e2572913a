import ConformTestSupport
import Foundation
import Testing

/// The failures the Mobile Messaging SDKs' users met in the field, each as a recording of the failure and of the same
/// scenario done right (`Fixtures/field-failures`, written by `generate.py`): `conform check` catches each failure by
/// its rule and by no other, and passes the corrected trace with that rule exercised.
@Suite struct FieldFailureTraceTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/field-failures")

    /// Each public issue's trace and the rule that must catch it.
    static let cases: [(trace: String, rule: String)] = [
        ("android-13-personalize-before-registration", "registration-first"),
        ("ios-12-personalize-failed-silently", "personalize-retry"),
        ("ios-15-no-registration", "registration-recovery"),
        ("react-native-66-registration-on-update", "update-keeps-registration"),
        ("android-38-sync-after-logout", "sync-keeps-delivered"),
        ("flutter-19-no-depersonalize", "logout-depersonalize"),
        ("failed-depersonalize-not-retried", "depersonalize-retry"),
    ]

    func check(_ file: String) async throws -> ChildProcess.Outcome {
        try await ChildProcess.output(
            TestPaths.conformBinary.path, ["check", "--verbose", file], directory: Self.fixtures,
            separateStandardError: true)
    }

    /// The rule ids of the lines marked `mark` ("✘" broken, "✔" held).
    func rules(_ output: String, _ mark: String) -> [String] {
        output.split(separator: "\n").filter { $0.hasPrefix(mark + " check-") }.compactMap { line in
            line.split(separator: "›").last?.split(separator: ":").first.map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        }
    }

    @Test(arguments: cases.map(\.trace))
    func theFailureIsCaughtByItsRuleAndTheFixPasses(_ trace: String) async throws {
        let rule = try #require(Self.cases.first { $0.trace == trace }?.rule)
        let broken = try await check("\(trace)/broken.jsonl")
        #expect(broken.status == 1, "\(broken.output)\(broken.errorOutput)")
        #expect(rules(broken.output, "✘") == [rule], "\(broken.output)")
        #expect(broken.output.hasSuffix("Result: 1 violation\n"), "\(broken.output)")
        let fixed = try await check("\(trace)/fixed.jsonl")
        #expect(fixed.status == 0, "\(fixed.output)\(fixed.errorOutput)")
        #expect(rules(fixed.output, "✘") == [], "\(fixed.output)")
        #expect(rules(fixed.output, "✔").contains(rule), "the fix exercises \(rule): \(fixed.output)")
        #expect(fixed.output.hasSuffix("Result: 0 violations\n"), "\(fixed.output)")
    }

    /// Every trace directory is in the list above, and every listed one exists.
    @Test func everyTraceIsChecked() throws {
        let directories = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path).filter {
            !$0.contains(".")
        }
        #expect(directories.sorted() == Self.cases.map(\.trace).sorted())
    }
}
