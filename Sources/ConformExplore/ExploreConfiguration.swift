import ConformCore
import ConformReference
import Foundation

/// How much an exploration may do: a number of sequences, or a time.
public enum ExploreBudget: Sendable, Hashable, CustomStringConvertible {
    case sequences(Int)
    case duration(Duration)

    public var description: String {
        switch self {
        case .sequences(let n): "\(n) sequence\(n == 1 ? "" : "s")"
        case .duration(let d): DurationText.format(d)
        }
    }
}

/// What `conform explore` was asked to do.
public struct ExploreConfiguration: Sendable {
    public var profile: ProtocolProfile
    /// The application mode the sequences run under (one of the profile's ``ProtocolProfile/applicationModes``).
    public var applicationMode: String
    public var seed: UInt64
    public var budget: ExploreBudget
    /// The longest sequence drawn.
    public var maxLength: Int
    /// How many installations and persons a sequence may use.
    public var devices: Int
    public var persons: Int
    /// How long a read may take to show an asynchronous effect (a push reaching message sync).
    public var window: Duration
    /// Every sequence up to this depth instead of random ones (`--exhaustive --depth N`).
    public var exhaustiveDepth: Int?
    /// Where shrunk divergences are written, and replayed from first.
    public var outDirectory: String?
    public var exchangeTimeout: Duration
    /// The target's base URLs.
    public var targetDefaults: [String: String]
    /// Variables given for the target (`--var`: its credentials, its base URLs); the reference keeps its own.
    public var variables: [String: String] = [:]
    public var targetDescription: String
    /// A fresh reference for every sequence.
    public var makeReference: @Sendable () -> ReferenceImplementation

    public init(
        profile: ProtocolProfile, applicationMode: String = "all", seed: UInt64,
        budget: ExploreBudget = .sequences(100),
        maxLength: Int = 12, devices: Int = 3, persons: Int = 2, window: Duration = .seconds(5),
        exhaustiveDepth: Int? = nil, outDirectory: String? = nil, exchangeTimeout: Duration = .seconds(10),
        targetDefaults: [String: String], targetDescription: String,
        makeReference: @escaping @Sendable () -> ReferenceImplementation = { ReferenceImplementation() }
    ) {
        self.profile = profile
        self.applicationMode = applicationMode
        self.seed = seed
        self.budget = budget
        self.maxLength = maxLength
        self.devices = devices
        self.persons = persons
        self.window = window
        self.exhaustiveDepth = exhaustiveDepth
        self.outDirectory = outDirectory
        self.exchangeTimeout = exchangeTimeout
        self.targetDefaults = targetDefaults
        self.targetDescription = targetDescription
        self.makeReference = makeReference
    }

    var application: ExploreApplication {
        profile.exploration.applications[applicationMode]
            ?? ExploreApplication(variables: [], userAuthorization: "")
    }

    /// The window as a suite writes it (`1500ms`).
    var windowText: String { "\(max(10, milliseconds(window)))ms" }

    /// How often a read is sent again within the window: a fifth of it, from 10 ms to 200 ms.
    var intervalText: String { "\(min(200, max(10, milliseconds(window) / 5)))ms" }

    private func milliseconds(_ d: Duration) -> Int64 {
        d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
    }
}
