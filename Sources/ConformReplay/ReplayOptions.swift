import ConformCore
import ConformTraffic
import Foundation

/// How a replay reaches its target and what it carries over from the recording.
public struct ReplayOptions: Sendable {
    /// Replaces the scheme and host of recorded URLs, by upstream name (`mobile`, `backend`) or `*` for all.
    public var origins: [String: String]
    /// Values to swap before sending (e.g. a redacted application code → the target's real one); seeds the id map.
    public var substitutions: [String: String]
    /// The identifiers the implementation mints, remapped from the recorded to the live ones (the profile's).
    public var minted: ProtocolProfile.MintedIdentifiers
    /// Most exchanges queued or running at once (memory stays bounded by this).
    public var maxInFlight: Int
    /// Whether flows of different devices run concurrently; `false` replays strictly in recorded order.
    public var concurrentFlows: Bool
    /// The flow of calls that name no device (the profile's ``ProtocolProfile/FlowKeys/sharedFlow``, Mobile
    /// Messaging's `backend`): each is sent alone, once everything before it is done; `nil` when none is.
    public var sharedFlow: String?
    /// Most mismatching exchanges kept in the summary (all are still counted and reported through the handler).
    public var maxKeptMismatches: Int
    /// Most transient ids (message and bulk ids) kept mapped at once (``IdentifierMap/transientLimit``).
    public var transientIdentifiers = 65_536
    /// With `--shard K/N`: the exchanges this shard sends (the others are skipped); `nil` sends all.
    public var partition: ReplayPartition?
    /// How fast to send (`--speed`, `--rate`); `.max` by default.
    public var pace: ReplayPace = .max
    /// The `Host` header every rebased request carries (`--host-header`); `nil` lets the transport set the
    /// target's. The recorded `Host` is never sent to another origin.
    public var hostHeader: String?
    /// The longest one exchange may take (``DeadlineTransport``); `nil` leaves it to the transport.
    public var exchangeTimeout: Duration?
    /// With `--fresh-identities`: the persons of this run, rewritten through every request and expected answer;
    /// `nil` replays the recorded persons (and a difference that looks like their leftover state says so).
    public var freshIdentities: FreshIdentities?
    /// The origin each upstream was reached at when the recording was made, by upstream name or `*`
    /// (``RecordingMeta/upstreams``): where the implementation names its own origin, the expected answer names the
    /// target's instead, as it does for the origin the recorded request went to.
    public var upstreamOrigins: [String: String] = [:]
    /// Whether a transport below the replay re-signs redacted Bearer tokens (``RedactedTokenSigner``): then each is
    /// re-dated and sent; otherwise the exchanges that carry one are not sent and cannot be judged.
    public var signsRedactedTokens = false

    /// Options for a replay of `profile`'s traffic: its minted identifiers are remapped.
    public init(
        profile: ProtocolProfile = .none, origins: [String: String] = [:], substitutions: [String: String] = [:],
        maxInFlight: Int = 64, concurrentFlows: Bool = true, maxKeptMismatches: Int = 100
    ) {
        self.origins = origins
        self.substitutions = substitutions
        self.minted = profile.replay.minted
        self.maxInFlight = maxInFlight
        self.concurrentFlows = concurrentFlows
        self.maxKeptMismatches = maxKeptMismatches
    }
}
