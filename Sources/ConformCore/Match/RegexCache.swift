import Foundation
import Synchronization

/// Compiled regular expressions by pattern and options, so a check run thousands of times compiles its pattern once.
enum RegexCache {
    private struct Key: Hashable {
        var pattern: String
        var options: UInt
    }

    private static let cache = Mutex<[Key: NSRegularExpression]>([:])

    /// The compiled pattern; throws when it is not a valid ICU regular expression.
    static func regex(_ pattern: String, options: NSRegularExpression.Options = []) throws -> NSRegularExpression {
        let key = Key(pattern: pattern, options: options.rawValue)
        if let hit = cache.withLock({ $0[key] }) { return hit }
        let compiled = try NSRegularExpression(pattern: pattern, options: options)
        cache.withLock { cache in
            if cache.count > 4096 { cache.removeAll() }
            cache[key] = compiled
        }
        return compiled
    }
}
