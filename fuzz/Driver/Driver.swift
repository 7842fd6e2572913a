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

/// libFuzzer's driver, which parses the command line and runs the loop.
@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// SwiftPM links an executable's `main` to `<module>_main`: hand over to libFuzzer's driver from there.
@_cdecl("conform_fuzz_main")
public func conformFuzzMain(
    _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    var count = argc
    var arguments = argv
    return runDriver(&count, &arguments) { start, size in
        fuzzOneInput(start.map { UnsafeRawPointer($0) }, size)
    }
}
