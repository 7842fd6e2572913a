import ConformCrypto
import Foundation

/// The SHA-256 of a suite file, hex: the suite version shown in reports.
enum ContentHash {
    static func of(_ data: Data) -> String { Hex.encode(SHA256.hash(data)) }
}
