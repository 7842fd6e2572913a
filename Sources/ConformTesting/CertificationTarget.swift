import ConformCore
import ConformMobileMessaging
import ConformReference
import Foundation

/// The implementation a certification runs against: a ``Transport`` and the base URLs its requests go to.
///
/// The transport is where an SDK plugs in its own networking layer; it must pass every request and response
/// through untouched (method, URL, header fields, body), because the suites check exactly what goes over the wire.
public struct CertificationTarget: Sendable {
    /// Sends each request of the suites and returns the response, or throws when there is none.
    public var transport: any Transport
    /// The base URL of the mobile API (`scheme://host[:port]`, no trailing slash): the suites' `mobile` variable.
    public var mobile: String
    /// The base URL of the backend API (People, Push): the suites' `backend` variable.
    public var backend: String
    /// How reports name the implementation.
    public var description: String

    /// A target whose mobile and backend APIs live at different base URLs.
    public init(transport: any Transport, mobile: String, backend: String, description: String? = nil) {
        self.transport = transport
        self.mobile = Self.trimmed(mobile)
        self.backend = Self.trimmed(backend)
        self.description = description ?? self.mobile
    }

    /// A target whose mobile and backend APIs share `baseURL` (a live backend, `conform serve`, a broker).
    public static func transport(
        _ transport: any Transport, baseURL: String, description: String? = nil
    ) -> CertificationTarget {
        CertificationTarget(transport: transport, mobile: baseURL, backend: baseURL, description: description)
    }

    /// The embedded reference implementation, in process, with deliberate `faults` and conforming `variants`.
    ///
    /// Use it to see the suites pass (no faults), catch a bug (a fault), or pass another correct backend (a
    /// variant); `conform run --fault NAME --variant NAME` runs the same. `clock` is the reference's "now" (JWT
    /// expiry, send times, asynchronous delivery); the system clock when `nil`.
    public static func reference(
        configuration: ReferenceConfiguration = .default, faults: Set<ReferenceFault> = [],
        variants: Set<ReferenceVariant> = [], clock: (@Sendable () -> Date)? = nil
    ) -> CertificationTarget {
        let switched =
            (faults.isEmpty ? "" : " with faults " + faults.map(\.rawValue).sorted().joined(separator: ", "))
            + (variants.isEmpty
                ? ""
                : (faults.isEmpty ? " with" : " and") + " variants "
                    + variants.map(\.rawValue).sorted().joined(separator: ", "))
        return CertificationTarget(
            transport: ReferenceImplementation(
                configuration: configuration, faults: faults, variants: variants, clock: clock ?? { Date() }),
            mobile: referenceMobileURL, backend: referenceBackendURL,
            description: "the embedded reference implementation" + switched)
    }

    /// The mobile base URL of the in-process reference; it routes on the path, so the host is never resolved.
    public static let referenceMobileURL = MobileMessaging.mobile.referenceURL
    /// The backend base URL of the in-process reference.
    public static let referenceBackendURL = MobileMessaging.backend.referenceURL

    /// The values of the profile's bases for this target.
    var baseURLs: [String: String] { [MobileMessaging.mobile.name: mobile, MobileMessaging.backend.name: backend] }

    private static func trimmed(_ url: String) -> String { url.hasSuffix("/") ? String(url.dropLast()) : url }
}
