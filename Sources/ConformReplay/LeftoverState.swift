import ConformCore
import Foundation

/// Differences that look like state an earlier replay of the same recording left on a long-lived target: a person
/// with more devices than recorded (an array element the live answer has and the recorded one had not), or a
/// refusal saying something already exists. They carry a note naming `--fresh-identities`.
public enum LeftoverState {
    /// The note put on the first such difference of an exchange.
    public static let note =
        "looks like state an earlier replay left on the target (its persons already exist): "
        + "replay with --fresh-identities to give each run persons of its own"

    /// Whether `difference` carries ``note`` (alone or after a note of its own).
    public static func isNoted(_ difference: Mismatch) -> Bool { difference.note?.hasSuffix(note) == true }

    /// `differences` with ``note`` on the first that looks like leftover state, when one does.
    public static func noted(_ differences: [Mismatch], expected: HTTPResponse, actual: HTTPResponse) -> [Mismatch] {
        guard let index = firstSign(differences, expected: expected, actual: actual) else { return differences }
        var out = differences
        out[index].note = out[index].note.map { "\($0); \(note)" } ?? note
        return out
    }

    /// The index of the first difference that looks like leftover state, or `nil`.
    static func firstSign(_ differences: [Mismatch], expected: HTTPResponse, actual: HTTPResponse) -> Int? {
        // More elements live than recorded: `$.instances[2]: expected (absent), got {…}`.
        if let index = differences.firstIndex(where: {
            $0.bodyPath?.hasSuffix("]") == true && $0.expected == Mismatch.absent && $0.actual != Mismatch.absent
        }) {
            return index
        }
        // A refusal the recording did not get, saying the thing is already there.
        guard let status = differences.firstIndex(where: { $0.path == "status" }),
            (400..<500).contains(actual.status.code)
        else { return nil }
        if actual.status.code == 409 { return status }
        let said = String(decoding: actual.body.prefix(4096), as: UTF8.self).lowercased()
        let recorded = String(decoding: expected.body.prefix(4096), as: UTF8.self).lowercased()
        let signs = ["already", "exists", "duplicate", "conflict"]
        return signs.contains { said.contains($0) && !recorded.contains($0) } ? status : nil
    }
}
