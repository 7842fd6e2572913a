import ConformCore
import ConformDiagnostics
import ConformReport
import ConformRunner
import ConformTraffic
import Foundation

/// A bundle's plan played again against its log: the run's, or each shard's of a merged bundle, then the shards'
/// results merged as `conform merge` merges their reports.
extension VerifiedBundle {
    /// The selection the run was given (`--tag`, `--filter`, `--step`).
    public var selection: RunSelection { RunSelection(tags: info.tags, filters: info.filters, steps: info.steps) }

    /// The plan `part` ran: the bundle's suites selected as the run selected them, the part's shard of them, its
    /// seed, variables and options; and the shard's place in the whole plan.
    /// A shard's text that is not `K/N` is an error that says why.
    public func plan(of part: Part) throws(Shard.SyntaxError) -> (
        plan: SuiteRun, placement: ShardPlacement, shard: Shard
    ) {
        let info = part.info
        var suites = RunSelection(tags: info.tags, filters: info.filters, steps: info.steps).apply(self.suites)
        var placement = ShardPlacement.whole(suiteCount: suites.count)
        var shard = Shard.whole
        if let text = info.shard {
            shard = try Shard.parse(text)
            (suites, placement) = ShardPlacement.select(suites, shard: shard)
        }
        var run = SuiteRun(
            suites: suites, planSuites: self.suites, overrides: info.variables, targetDefaults: info.bases,
            targetDescription: info.target, profile: kit.profile)
        run.plan.failFast = info.failFast
        run.plan.allowedHosts = info.allowedHosts
        run.plan.generatorSeed = info.seed
        return (run, placement, shard)
    }

    /// What the run (or the shards together) covered, against this kit's bundled suites: the suites that are not
    /// bundled named as the run named them, when the run had as many such suites.
    public func scope(suites: [Suite], shard: Shard) -> RunScope {
        var scope = kit.scope(selection: selection.words, suites: suites, shard: shard, failFast: info.failFast)
        // A suite that is not bundled is named by the path it was run from, not by its copy in the bundle (its
        // content is the manifest's to vouch for).
        if let written = report.result.scope?.otherSuites, written.count == scope.otherSuites.count {
            scope.otherSuites = written
        }
        return scope
    }

    /// Judges the bundle again through `console` and `reports`: its one plan with its events shown as they come,
    /// or, merged, each shard's plan from its own log, then the shards' results merged and shown. Throws when the
    /// shards' results do not make one run.
    public func judge(console: (any RunReporter)?, reports: [ReportTarget]) async throws -> Session.Outcome {
        if parts.count == 1, let part = parts.first {
            let (run, _, shard) = try plan(of: part)
            let session = Session(
                console: console, reports: reports, scope: scope(suites: run.plan.suites, shard: shard),
                provenance: report.result.provenance, credentialHeaders: kit.profile.credentialHeaderNames)
            return await run.run(through: part.transport, in: session, retention: .memory)
        }
        var results: [RunReport] = []
        for part in parts {
            let (run, placement, _) = try plan(of: part)
            let result = await Runner(transport: part.transport).run(run.plan, events: { _ in })
            results.append(RunReport(result: result, placement: placement, source: part.directory))
        }
        var merged = try RunReport.merge(results).result
        merged.scope = nil
        merged.provenance = nil
        let whole = selection.apply(suites)
        let session = Session(
            console: console, reports: reports, scope: scope(suites: whole, shard: .whole),
            provenance: report.result.provenance, credentialHeaders: kit.profile.credentialHeaderNames)
        return await session.run { [merged] events in
            merged.replay(to: events)
            return merged
        }
    }
}

extension VerifiedBundle {
    /// What judging the bundle again, with nothing shown, came to: the outcome, or why it could not be done.
    public enum Rejudged: Sendable {
        case judged(Session.Outcome)
        /// A bundled suite is not the one the run judged with.
        case suitesChanged(BundleProblem)
        /// The shards' results do not make one run, or the plan could not be built again.
        case failed(any Error)
    }

    /// Checks the bundled suites against the run's provenance, then judges the bundle again with nothing shown: the
    /// one way `verify` and `merge` read a bundle's verdict anew. A shard's syntax error is the caller's to report.
    public func judgeAgain() async throws(Shard.SyntaxError) -> Rejudged {
        do {
            try checkSuitesAgainstProvenance()
        } catch {
            return .suitesChanged(error)
        }
        do {
            return .judged(try await judge(console: nil, reports: []))
        } catch let error as Shard.SyntaxError {
            throw error
        } catch {
            return .failed(error)
        }
    }
}
