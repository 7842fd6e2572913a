import ConformServer
import Foundation

// conform-bench-http serve [--port N] [--threads N] [--answer JSON] [--max-header-bytes N]
//                                                 serve a static JSON document; prints "listening URL"
// conform-bench-http client URL [COUNT] [TASKS]  COUNT GET exchanges over CurlTransport; prints the cost of one
let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "serve":
    let port = arguments.firstIndex(of: "--port").flatMap { UInt16(arguments[$0 + 1]) } ?? 0
    let threads = arguments.firstIndex(of: "--threads").flatMap { Int(arguments[$0 + 1]) } ?? 4
    // With --answer, GET and POST alike get that document (bench/server-library compares servers on one answer).
    let answer = arguments.firstIndex(of: "--answer").map { Data(arguments[$0 + 1].utf8) }
    var limits = HTTPServerLimits(threads: threads)
    if let bytes = arguments.firstIndex(of: "--max-header-bytes").flatMap({ Int(arguments[$0 + 1]) }) {
        limits.maxHeaderBytes = bytes
    }
    let server = try HTTPServer(handler: StaticJSONHandler(answer: answer), port: port, limits: limits)
    try server.start()
    print("listening \(server.baseURL)")
    fflush(nil)
    while true { sleep(3600) }
case "client":
    guard arguments.count >= 3 else {
        FileHandle.standardError.write(Data("Usage: conform-bench-http client URL [COUNT] [TASKS]\n".utf8))
        exit(64)
    }
    let count = arguments.count > 3 ? Int(arguments[3]) ?? 20_000 : 20_000
    let tasks = arguments.count > 4 ? Int(arguments[4]) ?? 1 : 1
    let result = await SequentialClient.run(url: arguments[2], count: count, concurrency: tasks)
    let perExchange = result.seconds / Double(count) * 1e6
    print(
        String(
            format: "exchanges=%d tasks=%d seconds=%.3f req_per_s=%.0f us_per_exchange=%.1f reused=%d failures=%d",
            count, tasks, result.seconds, Double(count) / result.seconds, perExchange, result.reused, result.failures))
default:
    FileHandle.standardError.write(
        Data(
            ("Usage: conform-bench-http serve [--port N] [--threads N] [--answer JSON] [--max-header-bytes N]"
                + " | client URL [COUNT] [TASKS]\n").utf8))
    exit(64)
}
