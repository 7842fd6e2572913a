import ConformCore
import ConformCrypto
import Synchronization

/// `uuid`, `digits` and `random` drawn from a seed instead of at random: the n-th call of a suite's (or a flow's)
/// generators gives the SHA-256 of the seed, the key and n, so a plan run twice with one seed renders the same
/// values in each flow however the flows interleave. A bundle's run is seeded (a fresh random seed, written in the
/// bundle) so that `conform verify` renders the requests the run sent.
public enum SeededGenerators {
    /// The generators for `key` (a suite id, or `suite/flow`), each call drawing the next block.
    public static func functions(seed: String, key: String) -> [String: TemplateFunction] {
        let stream = Stream(seed: seed, key: key)
        let builtin = TemplateScope.builtinFunctions
        return [
            "uuid": TemplateFunction(summary: builtin["uuid"]?.summary ?? "a UUID") { _, _ in
                var b = Array(stream.next().prefix(16))
                b[6] = (b[6] & 0x0F) | 0x40
                b[8] = (b[8] & 0x3F) | 0x80
                return .string(Hex.uuidString(b))
            },
            "digits": TemplateFunction(summary: builtin["digits"]?.summary ?? "digits") {
                args, _ throws(TemplateError) in
                let count = try TemplateScope.intArgument(args, 0, name: "digits", default: 8)
                guard (1...64).contains(count) else {
                    throw TemplateError(
                        message: "digits takes a count from 1 to 64, got \(count)", help: "write {{ digits 8 }}")
                }
                let block = stream.next() + stream.next()
                return .string(String(block.prefix(count).map { Character(String(Int($0) % 10)) }))
            },
            "random": TemplateFunction(summary: builtin["random"]?.summary ?? "random") {
                args, _ throws(TemplateError) in
                let low = try TemplateScope.intArgument(args, 0, name: "random", default: 0)
                let high = try TemplateScope.intArgument(args, 1, name: "random", default: 1_000_000)
                guard low <= high else {
                    throw TemplateError(message: "random needs MIN <= MAX", help: "write {{ random 1 100 }}")
                }
                let value = stream.next().prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                let span = UInt64(bitPattern: Int64(high) &- Int64(low)) &+ 1
                return .int(span == 0 ? Int(bitPattern: UInt(value)) : low &+ Int(value % span))
            },
        ]
    }

    /// The blocks of one key: SHA-256 of `seed`, `key` and a counter, one per call.
    final class Stream: Sendable {
        let prefix: [UInt8]
        let counter = Mutex<UInt64>(0)

        init(seed: String, key: String) {
            prefix = Array(seed.utf8) + [0] + Array(key.utf8) + [0]
        }

        func next() -> [UInt8] {
            let n = counter.withLock { n in
                n += 1
                return n
            }
            return SHA256.hash(prefix + Array(String(n).utf8))
        }
    }
}
