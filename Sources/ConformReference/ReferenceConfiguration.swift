import ConformCore

/// What the reference implementation serves: its applications and a few protocol choices.
public struct ReferenceConfiguration: Sendable, Hashable {
    /// How an application profile authorizes user-data calls from the mobile SDK (an open set).
    public struct UserDataMode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// "Allow all mobile SDK requests": the application code authorizes everything.
        public static let all = UserDataMode(rawValue: "all")
        /// Personalize, repersonalize, GET user and PATCH user need a Bearer JWT (D9).
        public static let jwt = UserDataMode(rawValue: "jwt")
        /// Personal data only from the backend: mobile personalize, repersonalize and PATCH user are refused (D8).
        public static let restricted = UserDataMode(rawValue: "restricted")
        /// Personal data neither changed nor read from the app: as ``restricted``, and GET user is refused too (D8).
        public static let restrictedAccess = UserDataMode(rawValue: "restricted-access")

        /// The modes this implementation understands.
        public static let known: [UserDataMode] = [.all, .jwt, .restricted, .restrictedAccess]
        public var description: String { rawValue }
    }

    /// One application profile.
    public struct Application: Sendable, Hashable {
        /// Identifier used in the backend `applicationId` field and in snapshots.
        public var id: String
        /// The mobile credential: `Authorization: App <applicationCode>`.
        public var applicationCode: String
        /// The backend credential: `Authorization: App <apiKey>`.
        public var apiKey: String
        public var userDataMode: UserDataMode
        /// HS256 keys by key id (`kid`), each secret written in hex; the signing key is the decoded bytes.
        public var jwtKeys: [String: String]

        public init(
            id: String, applicationCode: String, apiKey: String, userDataMode: UserDataMode = .all,
            jwtKeys: [String: String] = [:]
        ) {
            self.id = id
            self.applicationCode = applicationCode
            self.apiKey = apiKey
            self.userDataMode = userDataMode
            self.jwtKeys = jwtKeys
        }
    }

    public var applications: [Application]
    /// The key in a push `to` object (and v3 `MULTIPLE` filters) that targets person tags (§11.4 leaves it open).
    public var tagKey: String
    /// The URL `GET /mobile/1/baseurl` answers when the request names no host.
    public var baseURL: String
    /// Seed for generated identifiers (pushRegIds, message and bulk ids); `nil` draws a random seed.
    public var seed: String?

    public init(
        applications: [Application], tagKey: String = "tags", baseURL: String = "http://mobile.conform.invalid",
        seed: String? = nil
    ) {
        self.applications = applications
        self.tagKey = tagKey
        self.baseURL = baseURL
        self.seed = seed
    }

    /// The applications every part of Conform agrees on: `default` (all), `jwt`, `restricted` and `restricted-access`.
    public static let `default` = ReferenceConfiguration(applications: [
        Application(id: "default", applicationCode: "conform-app-code", apiKey: "conform-api-key", userDataMode: .all),
        Application(
            id: "jwt", applicationCode: "conform-jwt-app-code", apiKey: "conform-jwt-api-key", userDataMode: .jwt,
            jwtKeys: ["conform-kid": "636f6e666f726d2d6a77742d7365637265742d6b65792d3031"]),
        Application(
            id: "restricted", applicationCode: "conform-restricted-app-code", apiKey: "conform-restricted-api-key",
            userDataMode: .restricted),
        Application(
            id: "restricted-access", applicationCode: "conform-restricted-access-app-code",
            apiKey: "conform-restricted-access-api-key", userDataMode: .restrictedAccess),
    ])

    /// The application whose mobile application code is `code`.
    public func application(code: String) -> Application? { applications.first { $0.applicationCode == code } }
    /// The application whose backend API key is `apiKey`.
    public func application(apiKey: String) -> Application? { applications.first { $0.apiKey == apiKey } }
    /// The application with identifier `id`.
    public func application(id: String) -> Application? { applications.first { $0.id == id } }
}
