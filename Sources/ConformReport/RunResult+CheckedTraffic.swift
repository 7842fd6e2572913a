extension RunResult {
    /// What a client check read and how much of the rulebook it reached, for every report's summary:
    /// "6 exchanges, 3 app events, 9 of 12 rules exercised".
    public struct CheckedTraffic: Sendable, Hashable {
        public var exchanges: Int
        public var appEvents: Int
        /// The rules judged (those not disabled).
        public var rules: Int
        /// The rules some checked trace gave something to judge.
        public var rulesExercised: Int

        public init(exchanges: Int, appEvents: Int, rules: Int, rulesExercised: Int) {
            self.exchanges = exchanges
            self.appEvents = appEvents
            self.rules = rules
            self.rulesExercised = min(rulesExercised, rules)
        }

        /// "6 exchanges, 3 app events, 9 of 12 rules exercised".
        public var summary: String {
            "\(Noun("exchange").counted(exchanges)), \(Noun("app event").counted(appEvents)), "
                + "\(rulesExercised) of \(Noun("rule").counted(rules)) exercised"
        }
    }
}
