import ConformCore
import Foundation

/// The scope, certifiability and provenance members of the JSON report, written and read back.
extension RunScope {
    /// The `scope` member (the shard is the report's own `shard` member).
    var json: JSONValue {
        [
            "selection": .array(selection.map { .string($0) }), "bundledSuites": .int(bundledSuites),
            "bundledSuitesRun": .int(bundledSuitesRun), "otherSuites": .array(otherSuites.map { .string($0) }),
            "failFast": .bool(failFast),
        ]
    }
}

extension RunProvenance {
    /// The `provenance` member; times are left out when `deterministic` (golden files).
    func json(deterministic: Bool) -> JSONValue {
        var o = JSONObject([
            ("kit", ["name": "conform", "version": .string(kitVersion), "commit": .string(kitCommit)]),
            (
                "suites",
                [
                    "digest": .string(suitesDigest),
                    "files": .array(
                        suiteFiles.map { ["file": .string($0.file), "sha256": .string($0.sha256)] }),
                ]
            ),
            ("commandLine", .array(commandLine.map { .string($0) })),
            (
                "variables",
                .array(
                    variables.map {
                        ["name": .string($0.name), "value": .string($0.value), "masked": .bool($0.masked)]
                    }
                )
            ),
        ])
        if let product {
            o["product"] = .object(
                JSONObject(
                    [("name", .string(product.name)), ("version", .string(product.version))]
                        + product.details.map { ($0.key, .string($0.value)) }))
        }
        if !deterministic {
            o["startedAt"] = .string(Self.timestamp(startedAt))
            if let finishedAt { o["finishedAt"] = .string(Self.timestamp(finishedAt)) }
        }
        return .object(o)
    }

    /// A time as the reports write it: ISO 8601, UTC, to the millisecond.
    public static func timestamp(_ date: Date) -> String {
        let utc = UTCTime(date)
        return "\(utc.day)T\(utc.time).\(utc.milliseconds)Z"
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}

extension RunReportReader {
    /// The run's `scope`, if the report has one (reports of older versions do not).
    func scope(_ root: JSONValue, shard: Shard) throws(RunReportError) -> RunScope? {
        guard let v = root["scope"] else { return nil }
        _ = try object(v, "$.scope")
        let bundled = try int(v["bundledSuites"], "$.scope.bundledSuites", 0...Self.maxCount)
        return RunScope(
            selection: try bounded(strings(v["selection"], "$.scope.selection"), "$.scope.selection"),
            bundledSuites: bundled,
            bundledSuitesRun: try int(v["bundledSuitesRun"], "$.scope.bundledSuitesRun", 0...bundled),
            otherSuites: try bounded(strings(v["otherSuites"], "$.scope.otherSuites"), "$.scope.otherSuites"),
            shard: shard,
            failFast: try bool(v["failFast"], "$.scope.failFast"))
    }

    /// The run's `provenance`, if the report has one.
    func provenance(_ root: JSONValue) throws(RunReportError) -> RunProvenance? {
        guard let v = root["provenance"] else { return nil }
        _ = try object(v, "$.provenance")
        let kit = try object(v["kit"], "$.provenance.kit")
        let suites = try object(v["suites"], "$.provenance.suites")
        var files: [RunProvenance.SuiteFile] = []
        for (i, item) in try array(suites["files"], "$.provenance.suites.files").enumerated() {
            let path = "$.provenance.suites.files[\(i)]"
            files.append(
                RunProvenance.SuiteFile(
                    file: try text(item["file"], "\(path).file"), sha256: try text(item["sha256"], "\(path).sha256")))
        }
        var variables: [RunProvenance.Variable] = []
        for (i, item) in try array(v["variables"], "$.provenance.variables").enumerated() {
            let path = "$.provenance.variables[\(i)]"
            variables.append(
                RunProvenance.Variable(
                    name: try text(item["name"], "\(path).name"), value: try text(item["value"], "\(path).value"),
                    masked: try bool(item["masked"], "\(path).masked")))
        }
        var product: ProductIdentity?
        if let p = v["product"] {
            let members = try object(p, "$.provenance.product").objectValue!
            var details: [(key: String, value: String)] = []
            for key in members.keys where key != "name" && key != "version" {
                details.append((key, try text(members[key], "$.provenance.product.\(key)")))
            }
            product = ProductIdentity(
                name: try text(p["name"], "$.provenance.product.name"),
                version: try text(p["version"], "$.provenance.product.version"), details: details)
        }
        return RunProvenance(
            kitVersion: try text(kit["version"], "$.provenance.kit.version"),
            kitCommit: try text(kit["commit"], "$.provenance.kit.commit"),
            suitesDigest: try text(suites["digest"], "$.provenance.suites.digest"),
            suiteFiles: try bounded(files, "$.provenance.suites.files"),
            commandLine: try bounded(strings(v["commandLine"], "$.provenance.commandLine"), "$.provenance.commandLine"),
            variables: try bounded(variables, "$.provenance.variables"), product: product,
            startedAt: try v["startedAt"].map { t throws(RunReportError) in try time(t, "$.provenance.startedAt") }
                ?? Date(timeIntervalSince1970: 0),
            finishedAt: try v["finishedAt"].map { t throws(RunReportError) in try time(t, "$.provenance.finishedAt") }
        )
    }

    func bool(_ v: JSONValue?, _ path: String) throws(RunReportError) -> Bool {
        guard let b = v?.boolValue else { throw fail(path, "expected true or false") }
        return b
    }

    /// A string of at most 64 KiB.
    func text(_ v: JSONValue?, _ path: String) throws(RunReportError) -> String {
        let s = try string(v, path)
        guard s.utf8.count <= 65536 else { throw fail(path, "longer than 65536 bytes") }
        return s
    }

    func time(_ v: JSONValue, _ path: String) throws(RunReportError) -> Date {
        guard let date = RunProvenance.date(try string(v, path)) else {
            throw fail(path, "expected an ISO 8601 time such as 2026-12-01T14:50:04.000Z")
        }
        return date
    }

    func bounded<T>(_ items: [T], _ path: String) throws(RunReportError) -> [T] {
        guard items.count <= 100_000 else { throw fail(path, "more than 100000 items") }
        return items
    }
}
