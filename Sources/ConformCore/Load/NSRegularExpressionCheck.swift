import Foundation

/// Compiles a pattern once to report syntax errors while loading.
enum NSRegularExpressionCheck {
    static func validate(_ pattern: String) throws {
        _ = try NSRegularExpression(pattern: pattern)
    }
}
