import Foundation

exit(await ReplayBenchmark.main(CommandLine.arguments))
