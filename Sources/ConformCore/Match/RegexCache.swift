import Foundation
import Synchronization

/// Compiled regular expressions by pattern, so a check run thousands of times compiles its pattern once.
enum RegexCache {
    private static let cache = Mutex<[String: NSRegularExpression]>([:])

    /// The compiled pattern; throws when it is not a valid ICU regular expression.
    static func regex(_ pattern: String) throws -> NSRegularExpression {
        if let hit = cache.withLock({ $0[pattern] }) { return hit }
        let compiled = try NSRegularExpression(pattern: pattern)
        cache.withLock { cache in
            if cache.count > 4096 { cache.removeAll() }
            cache[pattern] = compiled
        }
        return compiled
    }
}
