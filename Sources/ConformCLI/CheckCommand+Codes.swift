import ConformFlowCheck

/// The application codes `check`, `record --check` and `serve --check` are told (where `check` found them is
/// ``ApplicationCodes/Placing``).
extension CheckCommand {
    /// The codes of the options and of their environment variables (`CONFORM_RESTRICTED`, …).
    static func applicationCodes(_ parsed: Arguments) -> ApplicationCodes {
        ApplicationCodes(
            restricted: parsed.codes("--restricted"), accessRestricted: parsed.codes("--restricted-access"),
            jwt: parsed.codes("--jwt"))
    }
}
