import ConformCore
import ConformMobileMessaging
import Foundation
import Testing

/// Which variables a suite sends as credentials, learned from where its requests put them, never from their names.
@Suite struct SuiteCredentialTests {
    let loader = SuiteLoader(profile: .mobileMessaging)

    func credentials(_ text: String) throws -> Set<String> {
        try loader.load(bytes: Array(text.utf8), file: "s.yaml").credentialVariables(profile: .mobileMessaging)
    }

    @Test func namesInCredentialPlacesAreCredentialsWhateverTheyAreCalled() throws {
        let found = try credentials(
            """
            suite: s
            title: t
            vars:
              plain: conform-user-
              restricted: code-1
              header: "App {{ restricted }}"
              people: code-2
              key: key-3
              jwtKey: 00
              jwtCode: code-4
              user: "{{ plain }}{{ uuid }}"
              listed: key-5
            steps:
              - name: by a header made of another variable
                request:
                  method: POST
                  url: "{{ mobile }}/mobile/1/appinstance?api_key={{ listed }}&user={{ user }}"
                  headers: {Authorization: "{{ header }}", AppCode: "{{ people }}", X-Trace: "{{ plain }}"}
                  query: {access_token: "{{ key }}", user: "{{ user }}"}
              - name: by a JWT's key and application claim, not its subject
                request:
                  method: GET
                  url: "{{ mobile }}/mobile/1/user"
                  headers:
                    Authorization: "Bearer {{ jwt sub=user secret=jwtKey kid=plain app=jwtCode }}"
            """)
        #expect(found == ["header", "restricted", "people", "key", "jwtKey", "jwtCode", "listed"])
    }

    @Test func theBundledRestrictedAndJWTCodesAreCredentials() throws {
        let plan = try ["07-restricted-profile", "07-restricted-access", "07-jwt-profile"].map { name in
            try loader.load(
                path: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent().appendingPathComponent("suites/\(name).yaml").path)
        }
        let found = Suite.credentialVariables(of: plan, profile: .mobileMessaging)
        for name in ["restrictedAppCode", "restrictedAccessAppCode", "jwtAppCode", "jwtSecret"] {
            #expect(found.contains(name), "\(found.sorted())")
        }
        #expect(!found.contains("user") && !found.contains("userPrefix"), "\(found.sorted())")
    }
}
