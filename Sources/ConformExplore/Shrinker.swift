import ConformCore

/// Makes a divergent sequence smaller while it still diverges: cut after the divergence, drop operations, merge
/// persons, merge devices, take each parameter's simplest value; every attempt plays on fresh identities.
struct Shrinker: Sendable {
    var player: SequencePlayer
    /// The most attempts one shrink may play.
    var maxAttempts = 300

    struct Shrunk: Sendable {
        var sequence: ExploreSequence
        var played: PlayedSequence
        var attempts: Int
    }

    func shrink(_ sequence: ExploreSequence, played: PlayedSequence) async -> Shrunk {
        let operations = player.configuration.profile.exploration.operations
        var best = Shrunk(sequence: sequence, played: played, attempts: 0)
        func cut(_ s: ExploreSequence, _ outcome: SequenceOutcome) -> ExploreSequence {
            guard case .diverged(let step) = outcome else { return s }
            return ExploreSequence(Array(s.steps.prefix(step + 1)))
        }
        best.sequence = cut(sequence, played.outcome)
        // Try one candidate: keep it when it still diverges.
        func attempt(_ candidate: ExploreSequence) async -> Bool {
            let candidate = candidate.normalized(operations)
            guard best.attempts < maxAttempts, !candidate.steps.isEmpty, candidate != best.sequence else {
                return false
            }
            best.attempts += 1
            let result = await player.play(candidate, id: "explore-shrink")
            guard result.outcome.diverged else { return false }
            best.sequence = cut(candidate, result.outcome)
            best.played = result
            return true
        }
        var changed = true
        while changed && best.attempts < maxAttempts {
            changed = false
            // Drop operations, the last first (a later step rarely matters to an earlier divergence).
            var i = best.sequence.steps.count - 2
            while i >= 0 {
                var steps = best.sequence.steps
                if i < steps.count {
                    steps.remove(at: i)
                    if await attempt(ExploreSequence(steps)) { changed = true }
                }
                i -= 1
            }
            // Merge persons and devices into lower ones.
            let persons = Set(best.sequence.steps.map(\.person)).sorted()
            for b in persons.reversed() where b > 0 {
                for a in 0..<b {
                    let merged = best.sequence.steps.map { step -> ExploreStep in
                        var step = step
                        if step.person == b { step.person = a }
                        return step
                    }
                    if await attempt(ExploreSequence(merged)) {
                        changed = true
                        break
                    }
                }
            }
            let devices = best.sequence.steps.filter { operations[$0.operation].registers != nil }.map(\.device)
            for b in devices.reversed() where b > 0 {
                for a in 0..<b {
                    let merged = best.sequence.steps.compactMap { step -> ExploreStep? in
                        var step = step
                        if operations[step.operation].registers != nil, step.device == b { return nil }
                        if step.device == b { step.device = a }
                        if step.other == b { step.other = a }
                        return step
                    }
                    if await attempt(ExploreSequence(merged)) {
                        changed = true
                        break
                    }
                }
            }
            // Each parameter at its simplest value.
            var index = 0
            while index < best.sequence.steps.count {
                var c = 0
                while index < best.sequence.steps.count, c < best.sequence.steps[index].choices.count {
                    if best.sequence.steps[index].choices[c] > 0 {
                        var steps = best.sequence.steps
                        steps[index].choices[c] = 0
                        if await attempt(ExploreSequence(steps)) { changed = true }
                    }
                    c += 1
                }
                index += 1
            }
        }
        return best
    }
}
