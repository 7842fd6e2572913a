import ConformCore
import Foundation

/// Gives a handler the absolute URL each request was made to, so what it announces about itself (a base URL) carries
/// the scheme and host the client used: a configured public origin first; else, from a trusted front only,
/// `X-Forwarded-Proto` and `X-Forwarded-Host`; else the listener's own scheme and the `Host` header.
///
/// A `Host` or forwarded value that is no plain authority (letters, digits, `.`, `-`, `_`, `:`, brackets; at most
/// 255 bytes) is not used, and the request goes on in origin form, as it came.
public struct OriginHandler: HTTPHandler {
    public let inner: any HTTPHandler
    /// `http` or `https`: what the listener speaks.
    public let scheme: String
    /// `scheme://host[:port]` that every request is said to come to, or `nil`.
    public let publicOrigin: String?
    /// Whether `X-Forwarded-Proto` and `X-Forwarded-Host` are believed (only behind a front the operator runs).
    public let trustForwarded: Bool

    public init(_ inner: any HTTPHandler, scheme: String, publicOrigin: String? = nil, trustForwarded: Bool = false) {
        self.inner = inner
        self.scheme = scheme
        self.publicOrigin = publicOrigin
        self.trustForwarded = trustForwarded
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse { inner.handle(absolute(request)) }

    public func refusal(status: HTTPStatus, code: String, message: String) -> HTTPResponse {
        inner.refusal(status: status, code: code, message: message)
    }

    /// The request with an absolute URL, when its origin can be told.
    func absolute(_ request: HTTPRequest) -> HTTPRequest {
        guard request.url.hasPrefix("/"), let origin = origin(of: request) else { return request }
        var absolute = request
        absolute.url = origin + request.url
        return absolute
    }

    func origin(of request: HTTPRequest) -> String? {
        if let publicOrigin { return publicOrigin }
        var scheme = self.scheme
        var host = request.headerFields["Host"]
        if trustForwarded {
            if let proto = Self.first(request.headerFields["X-Forwarded-Proto"])?.lowercased(),
                proto == "http" || proto == "https"
            {
                scheme = proto
            }
            if let forwarded = Self.first(request.headerFields["X-Forwarded-Host"]), Self.isAuthority(forwarded) {
                host = forwarded
            }
        }
        guard let host, Self.isAuthority(host) else { return nil }
        return "\(scheme)://\(host)"
    }

    /// The first of a comma-separated list, trimmed.
    static func first(_ value: String?) -> String? {
        guard let value else { return nil }
        let first = value.split(separator: ",", omittingEmptySubsequences: false).first ?? ""
        let trimmed = first.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }

    static func isAuthority(_ text: String) -> Bool {
        guard (1...255).contains(text.utf8.count) else { return false }
        return text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
        }
    }
}
