import ConformCore
import ConformTraffic
import ConformYAML
import Foundation
import Synchronization

/// Noise rules proposed from two identical replays, with evidence for each rule.
public struct LearnedNoise: Sendable, Hashable {
    /// What supports one proposed rule.
    public struct Evidence: Sendable, Hashable {
        public var rule: NoiseRules.Rule
        /// How many exchanges differed there.
        public var count: Int
        /// One example: the first run's value and the second run's.
        public var first: String
        public var second: String
    }

    public var evidence: [Evidence]

    /// The proposed rules.
    public var rules: NoiseRules { NoiseRules(evidence.map(\.rule)) }

    /// YAML a reviewer can read: one rule per differing field, with a comment showing the evidence.
    public func yamlText() -> String {
        var out = "# Noise rules proposed by replaying the same recording twice against the same target.\n"
        out += "# Each field below differed between the two runs; review before committing.\n"
        if evidence.isEmpty { return out + "ignore: []\n" }
        out += "ignore:\n"
        for e in evidence {
            out += "  # differed in \(e.count) exchange(s), e.g. \(Self.clip(e.first)) vs \(Self.clip(e.second))\n"
            let item = YAML.emit(.sequence([e.rule.yamlNode(withReason: false)]))
            for line in item.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
                out += line.isEmpty ? "\n" : "  \(line)\n"
            }
        }
        return out
    }

    private static func clip(_ s: String) -> String {
        let flat = s.replacingOccurrences(of: "\n", with: " ")
        return flat.count > 40 ? String(flat.prefix(40)) + "…" : flat
    }
}

/// Learns noise the way Diffy does: whatever differs between two runs of identical requests is noise.
public enum NoiseLearner {
    /// Replays `exchanges` twice against `transport` and proposes rules for the fields that differed.
    ///
    /// A stateful target answers the second run with the first run's data still in place (a person now has two
    /// devices); such differences are proposed too, so review the result, or pass two fresh targets to
    /// ``learn(_:first:second:noise:options:)``.
    public static func learn(
        _ exchanges: [RecordedExchange], transport: any Transport, noise: NoiseRules = .default,
        options: ReplayOptions = ReplayOptions()
    ) async throws -> LearnedNoise {
        try await learn(exchanges, first: transport, second: transport, noise: noise, options: options)
    }

    /// Replays `exchanges` once against each of two equivalent targets and proposes rules for what differed.
    public static func learn(
        _ exchanges: [RecordedExchange], first firstTarget: any Transport, second secondTarget: any Transport,
        noise: NoiseRules = .default, options: ReplayOptions = ReplayOptions()
    ) async throws -> LearnedNoise {
        let firstRun = ResponseLog()
        let first = try await Replayer(transport: firstTarget, noise: noise, options: options).replay(exchanges) {
            firstRun.add($0)
        }
        let secondRun = ResponseLog()
        let second = try await Replayer(transport: secondTarget, noise: noise, options: options).replay(exchanges) {
            secondRun.add($0)
        }
        let backA = first.identifiers.inverted
        let backB = second.identifiers.inverted
        let a = firstRun.responses.withLock { $0 }
        let b = secondRun.responses.withLock { $0 }
        var found: [String: LearnedNoise.Evidence] = [:]
        var order: [String] = []
        for seq in a.keys.sorted() {
            guard let ra = a[seq], let rb = b[seq] else { continue }
            let diffs = ResponseDiff.compare(expected: backA.apply(ra), actual: backB.apply(rb), noise: noise)
            for d in diffs {
                let rule: NoiseRules.Rule
                if let name = d.headerName {
                    rule = .header(name, reason: nil)
                } else if let path = d.bodyPath {
                    guard let pattern = JSONPathPattern(generalize(path)) else { continue }
                    rule = .path(pattern, reason: nil)
                } else if d.path == "body" {
                    rule = .path(JSONPathPattern("$")!, reason: nil)
                } else {
                    continue
                }
                let key = "\(rule)"
                if found[key] == nil {
                    found[key] = .init(rule: rule, count: 0, first: d.expected, second: d.actual)
                    order.append(key)
                }
                found[key]!.count += 1
            }
        }
        return LearnedNoise(evidence: order.map { found[$0]! })
    }

    /// `$.a[3].b` → `$.a[*].b`: array positions do not matter for noise.
    static func generalize(_ path: String) -> String {
        var out = ""
        var inBracket = false
        var bracket = ""
        for ch in path {
            if ch == "[" {
                inBracket = true
                bracket = ""
            } else if ch == "]", inBracket {
                inBracket = false
                out += Int(bracket) != nil ? "[*]" : "[\(bracket)]"
            } else if inBracket {
                bracket.append(ch)
            } else {
                out.append(ch)
            }
        }
        return out
    }
}

/// Live responses of one run by `seq`, collected from concurrent tasks.
final class ResponseLog: Sendable {
    let responses = Mutex<[Int: HTTPResponse]>([:])

    func add(_ outcome: ReplayOutcome) {
        guard let live = outcome.actual else { return }
        responses.withLock { $0[outcome.seq] = live }
    }
}
