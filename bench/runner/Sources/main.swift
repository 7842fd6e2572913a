import ConformBenchSupport
import Foundation

let arguments = CommandLine.arguments
exit(await RunnerBenchmark.main(arguments))
