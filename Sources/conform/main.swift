import ConformCLI
import Foundation

ConformCommand.configureProcess()
ConformCommand.endProcess(await ConformCommand.main(CommandLine.arguments))
