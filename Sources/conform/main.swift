import ConformCLI
import Foundation

exit(await ConformCommand.main(CommandLine.arguments))
