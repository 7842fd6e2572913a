// Times ConformYAML's tree parse (events, composer checks, tree) over a file read into memory.
import ConformYAML
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: conform-bench-yaml FILE [RUNS]\n".utf8))
    exit(64)
}
let runs = max(1, min(64, arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3))
guard let data = FileManager.default.contents(atPath: arguments[1]) else {
    FileHandle.standardError.write(Data("cannot read \(arguments[1])\n".utf8))
    exit(2)
}
let bytes = [UInt8](data)
let limits = YAMLLimits(maxBytes: Int.max, maxDepth: 200, maxNodes: Int.max)
let megabytes = Double(bytes.count) / 1e6

func countNodes(_ node: YAMLNode) -> Int {
    switch node.kind {
    case .scalar: 1
    case .sequence(let items): items.reduce(1) { $0 + countNodes($1) }
    case .mapping(let pairs): pairs.reduce(1) { $0 + countNodes($1.key) + countNodes($1.value) }
    }
}

var rates: [Double] = []
for run in 1...runs {
    let clock = ContinuousClock()
    let start = clock.now
    let tree: YAMLNode?
    do {
        tree = try YAML.parse(bytes, file: arguments[1], limits: limits)
    } catch {
        FileHandle.standardError.write(Data((error.diagnostics.first?.message ?? "parse failed").utf8 + [10]))
        exit(1)
    }
    let elapsed = start.duration(to: clock.now)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    rates.append(megabytes / seconds)
    let nodes = tree.map(countNodes) ?? 0
    print(String(format: "conform tree: run %d: %.3f s, %d nodes, %.1f MB/s", run, seconds, nodes, rates.last!))
}
rates.sort()
print(String(format: "conform tree: median %.1f MB/s over %d runs (%.1f MB)", rates[runs / 2], runs, megabytes))
