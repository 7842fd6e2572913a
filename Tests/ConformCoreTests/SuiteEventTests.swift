import ConformCore
import ConformDiagnostics
import ConformMobileMessaging
import Testing

/// A wait names an event some step of its suite emits: a misspelt one is a problem at the wait, with the event
/// it probably meant, not a run that later blames the implementation.
@Suite struct SuiteEventTests {
    func diagnostics(_ text: String) -> [Diagnostic] {
        do {
            _ = try SuiteLoader(profile: .mobileMessaging).load(bytes: Array(text.utf8), file: "s.yaml")
            return []
        } catch {
            return error.diagnostics
        }
    }

    static func suite(wait: String) -> String {
        """
        suite: events
        title: events
        flows:
          phone:
            - name: register
              request: {method: POST, url: "{{ mobile }}/mobile/1/appinstance"}
              emits: registrationUpdated
          tablet:
            - wait: \(wait)
        """
    }

    @Test func aMisspeltEventIsAProblemWithADidYouMean() throws {
        let found = diagnostics(Self.suite(wait: "{event: registrationUpdate}"))
        let problem = try #require(found.first)
        #expect(found.count == 1)
        #expect(problem.id == .suiteUnknownEvent)
        #expect(problem.mark == SourceMark(line: 9, column: 7))
        #expect(problem.message == "the wait is for event 'registrationUpdate', which no step of this suite emits")
        #expect(problem.help?.hasPrefix("did you mean 'registrationUpdated'?") == true)
    }

    @Test func theFlowAWaitNamesMustExistAndEmitIt() throws {
        let missingFlow = try #require(diagnostics(Self.suite(wait: "{event: registrationUpdated, flow: phon}")).first)
        #expect(missingFlow.message == "the wait names flow 'phon', which this suite does not have")
        #expect(missingFlow.help?.hasPrefix("did you mean 'phone'?") == true)
        let otherFlow = try #require(
            diagnostics(Self.suite(wait: "{event: registrationUpdated, flow: tablet}")).first)
        #expect(
            otherFlow.message == "the wait is for event 'registrationUpdated', which no step of flow 'tablet' emits")
    }

    @Test(arguments: ["registrationUpdated", "{event: registrationUpdated, flow: phone}"])
    func aWaitForAnEmittedEventIsFine(wait: String) {
        #expect(diagnostics(Self.suite(wait: wait)).isEmpty)
    }
}
