import ConformCLI
import Foundation

ConformCommand.configureProcess()
exit(await ConformCommand.main(CommandLine.arguments))
