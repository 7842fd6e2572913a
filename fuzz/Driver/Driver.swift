import ConformFuzzTargets
import Foundation

/// The target named by `CONFORM_FUZZ_TARGET`, chosen once.
private let selected: @Sendable (Data) -> Void = {
    let name = ProcessInfo.processInfo.environment["CONFORM_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTargets.all[name] else {
        let known = FuzzTargets.all.keys.sorted().joined(separator: ", ")
        fatalError("set CONFORM_FUZZ_TARGET to one of: \(known)")
    }
    return target
}()

/// libFuzzer's entry point: one input per call.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    selected(data)
    return 0
}
