import ConformCore
import ConformCrypto
import ConformTraffic
import Foundation

/// How `conform verify` judges a redacted log: the test data a run sent (a made-up e-mail address, phone number or
/// push token in a request body) comes back in responses as pseudonyms, which a suite that expects its own value
/// cannot match. A bundle keeps, for each pseudonym that stands for a value the run itself sent, the SHA-256 of
/// that value (salted by the run's seed), never the value; verification, which renders the same requests from the
/// same seed, recognises its own values by their digests and puts them back in the responses it judges. A value the
/// run never sent (a server's secret, a credential in a header) stays a pseudonym.
public enum BundlePseudonyms {
    /// The most values remembered per run, so a hostile or huge run cannot grow the table without bound.
    public static let maxValues = 1_000_000

    /// The digest of a value under a run's seed.
    public static func digest(_ value: String, seed: String) -> String {
        Hex.encode(SHA256.hash(Array(seed.utf8) + [0] + Array(value.utf8)))
    }

    /// The texts a request sends: the string leaves of a JSON body, query values and path segments.
    public static func sentValues(_ request: HTTPRequest) -> [String] {
        let url = URLParts(request.url)
        var out = url.queryItems.map(\.value)
        out += url.path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        if let json = try? JSONValue.parse(request.body) {
            json.walk { _, value in if case .string(let s) = value { out.append(s) } }
        }
        return out.filter { !$0.isEmpty }
    }

    /// The pairs (value as sent, pseudonym as written) where a response body's string leaf was redacted.
    public static func redactedLeaves(clear: Data, redacted: Data) -> [(value: String, pseudonym: String)] {
        guard clear != redacted, let a = try? JSONValue.parse(clear), let b = try? JSONValue.parse(redacted) else {
            return []
        }
        var out: [(String, String)] = []
        func pair(_ x: JSONValue, _ y: JSONValue) {
            switch (x, y) {
            case (.string(let s), .string(let t)) where s != t: out.append((s, t))
            case (.array(let xs), .array(let ys)) where xs.count == ys.count: for (p, q) in zip(xs, ys) { pair(p, q) }
            case (.object(let xo), .object(let yo)):
                for (key, value) in xo { if let other = yo[key] { pair(value, other) } }
            default: break
            }
        }
        pair(a, b)
        return out
    }

    /// `response` with every JSON string leaf that is a pseudonym in `restored` replaced by the value it stands
    /// for, and its `Content-Length` set to the new body's; the response as it was when nothing is replaced.
    public static func restoring(_ response: HTTPResponse, _ restored: [String: String]) -> HTTPResponse {
        guard !restored.isEmpty, let json = try? JSONValue.parse(response.body) else { return response }
        var changed = false
        let rewritten = json.rewritten { _, value in
            guard case .string(let s) = value, let original = restored[s] else { return nil }
            changed = true
            return .string(original)
        }
        guard changed else { return response }
        var out = response
        out.body = Data(rewritten.serialized().utf8)
        if out.headerFields["Content-Length"] != nil { out.headerFields["Content-Length"] = String(out.body.count) }
        return out
    }
}
