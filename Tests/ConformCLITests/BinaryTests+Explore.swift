import Foundation
import Testing

extension BinaryTests {
    /// What `conform explore --fault FAULT` printed must hold for a divergence: exit 1, the shrunk suite written under
    /// `out` for `seed`, citing the flow, and an ordinary suite that fails on the fault and passes on the reference.
    /// Gives the shrunk suite's path.
    @discardableResult
    func expectShrunkSuite(
        _ run: (code: Int32, out: String, err: String), fault: String, seed: String, out: String
    ) async throws -> String {
        #expect(run.code == 1, "explore --fault \(fault) printed:\n\(run.out)\(run.err)")
        #expect(run.out.contains("Result: DIVERGES FROM THE REFERENCE"))
        let line = try #require(run.out.split(separator: "\n").first { $0.hasPrefix("Shrunk suite: ") })
        let path = String(line.dropFirst("Shrunk suite: ".count).prefix { $0 != " " })
        #expect(path.hasPrefix(out + "/explore-seed\(seed)-"))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("spec: \"flow step") || text.contains("spec: \"API"))
        // The shrunk suite is an ordinary suite: it fails on the fault and passes on the reference.
        let onFault = try await conform(["run", path, "--fault", fault, "--no-color"])
        #expect(onFault.code == 1, "run on the fault printed:\n\(onFault.out)\(onFault.err)")
        let onReference = try await conform(["run", path, "--no-color"])
        #expect(onReference.code == 0, "run on the reference printed:\n\(onReference.out)\(onReference.err)")
        return path
    }
}
