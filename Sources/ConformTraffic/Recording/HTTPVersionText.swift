/// The HTTP versions a recording names (`response.httpVersion`, HAR's `httpVersion`), written one way.
enum HTTPVersionText {
    /// The versions a recording line may hold.
    static let known = ["HTTP/1.0", "HTTP/1.1", "HTTP/2", "HTTP/3"]

    /// A version as tools write it (`HTTP/2.0`, `h2`, `http/1.1`, `h3`) in the recording's form, or `nil` when it is
    /// none of ``known`` (HAR writers also leave it empty or write `unknown`).
    static func normalized(_ text: String) -> String? {
        switch text.lowercased() {
        case "http/1.0": "HTTP/1.0"
        case "http/1.1": "HTTP/1.1"
        case "http/2", "http/2.0", "h2", "h2c": "HTTP/2"
        case "http/3", "http/3.0", "h3": "HTTP/3"
        default: nil
        }
    }
}
