/// The closest candidate by edit distance, if it is close enough to be a likely typo: the "did you mean" of a `help:`.
public func closestMatch(to word: String, in candidates: [String]) -> String? {
    var best: (String, Int)?
    for candidate in candidates {
        let d = editDistance(word.lowercased(), candidate.lowercased())
        if d <= max(1, word.count / 3), best == nil || d < best!.1 { best = (candidate, d) }
    }
    return best?.0
}

private func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
