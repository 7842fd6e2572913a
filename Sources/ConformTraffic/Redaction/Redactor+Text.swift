import ConformCore
import Foundation

/// Free text (header values, URLs, JSON strings, bodies that are not JSON): known credentials, emails, international
/// phone numbers, JWTs and the user's patterns.
extension Redactor {
    /// Emails, phone numbers and JWTs that a URL or a form wrote percent-encoded (`user%40example.com`, twice
    /// `user%2540example.com`): found in the decoded text and replaced in the text's own form, encoded as they were.
    func redact(encoded text: String) -> String {
        guard let decoded = PercentDecoded(text) else { return text }
        let plain = decoded.text
        typealias Finder = (matches: [Range<String.Index>], replacement: (Substring) -> String?)
        var finders: [Finder] = []
        if plain.containsBytes("eyJ") {
            finders.append(
                (TextPattern.jwt.matches(in: plain), { self.keep.contains(String($0)) ? nil : self.jwt(String($0)) }))
        }
        if policy.emailsInText, plain.containsBytes("@") {
            finders.append(
                (
                    TextPattern.email.matches(in: plain),
                    { self.keep.contains(String($0)) ? nil : self.pseudonyms.email(String($0)) }
                ))
        }
        if policy.phonesInText, plain.containsBytes("+") {
            finders.append(
                (
                    TextPattern.internationalPhone.matches(in: plain),
                    { self.keep.contains(String($0)) ? nil : self.pseudonyms.phone(String($0)) }
                ))
        }
        let known = knownSecrets.withLock { $0 }
        if !known.isEmpty {
            finders.append((known.ranges(in: plain), { known.pseudonym(of: String($0)) }))
        }
        return decoded.replacing(decoded.edits(finders, in: text), in: text)
    }

    /// Replaces known credentials, emails, international phone numbers and user patterns in free text.
    public func redact(text: String) -> String {
        var out = knownSecrets.withLock { $0.replacing(in: text) }
        if out.containsBytes("%") { out = redact(encoded: out) }
        if out.containsBytes("eyJ") {
            out = TextPattern.jwt.replacing(in: out) { keep.contains(String($0)) ? nil : jwt(String($0)) }
        }
        if policy.emailsInText, out.containsBytes("@") {
            out = TextPattern.email.replacing(in: out) {
                keep.contains(String($0)) ? nil : pseudonyms.email(String($0))
            }
        }
        if policy.phonesInText, out.containsBytes("+") || out.containsBytes("%2B") || out.containsBytes("%2b") {
            out = TextPattern.internationalPhone.replacing(in: out) {
                keep.contains(String($0)) ? nil : pseudonyms.phone(String($0))
            }
        }
        for pattern in userPatterns {
            out = pattern.replacing(in: out) { keep.contains(String($0)) ? nil : pseudonyms.opaque(String($0)) }
        }
        return out
    }
}
