import ConformCurl

/// The transport under measurement, with the settings a suite run uses.
enum CurlTransportFactory {
    static func make() -> CurlTransport { CurlTransport(timeout: .seconds(10)) }
}
