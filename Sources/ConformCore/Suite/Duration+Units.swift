extension Duration {
    /// The duration in seconds, as reports, rates and Foundation's `TimeInterval` count time.
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in milliseconds, fractions kept: the unit recordings keep.
    public var inMilliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }

    /// Whole milliseconds, truncated toward zero: what C libraries, `poll` and dispatch timers take.
    public var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
