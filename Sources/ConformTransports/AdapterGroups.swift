import ConformCore
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The process groups of the adapters this process started, so that none outlives it: each adapter runs in a group
/// of its own, and every way out (the adapter's end, a restart, Conform's own exit or a signal to it) ends the whole
/// group, the adapter's children included.
public enum AdapterGroups {
    /// How long a group has between SIGTERM and SIGKILL.
    public static let grace: Duration = .seconds(2)

    private static let state = Mutex<(live: Set<pid_t>, ending: Bool)>(([], false))

    /// Whether `group` is still known as an adapter's group that has not been killed for good.
    static func isLive(_ group: pid_t) -> Bool { state.withLock { $0.live.contains(group) } }

    /// Runs `spawn` and keeps the group of the process it started, unless the process is ending (then no adapter
    /// may start, and this returns `false`).
    static func spawning(_ spawn: () -> pid_t?) -> Bool {
        state.withLock { state in
            guard !state.ending else { return false }
            if let group = spawn() { state.live.insert(group) }
            return true
        }
    }

    /// Ends `group`: SIGTERM now, SIGKILL once `grace` has passed, whatever the group did meanwhile.
    static func end(_ group: pid_t, grace: Duration = grace) {
        guard isLive(group) else { return }
        Glibc.kill(-group, SIGTERM)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds(grace))) {
            kill(group: group)
        }
    }

    /// SIGKILL to `group`, which is then forgotten.
    static func kill(group: pid_t) {
        let known = state.withLock { $0.live.remove(group) != nil }
        if known { Glibc.kill(-group, SIGKILL) }
    }

    /// Ends every adapter group still running: SIGTERM to each, then SIGKILL to each after `grace`, or as soon as
    /// every group is empty. No adapter starts after this. Blocks the calling thread; for the process's last
    /// moments (its exit or a signal).
    public static func endAll(grace: Duration = grace) {
        let groups = state.withLock { state in
            state.ending = true
            return state.live
        }
        guard !groups.isEmpty else { return }
        for group in groups { Glibc.kill(-group, SIGTERM) }
        let deadline = DispatchTime.now() + .milliseconds(milliseconds(grace))
        // A group is empty once no process is left in it that still runs (signal 0 probes without sending anything;
        // an orphan's zombie that no init reaps counts as gone).
        while DispatchTime.now() < deadline, groups.contains(where: { Glibc.kill(-$0, 0) == 0 && running(in: $0) }) {
            usleep(20_000)
        }
        for group in groups { kill(group: group) }
    }

    /// Whether a process of `group` is still running rather than a zombie, read from `/proc`; `true` when `/proc`
    /// cannot tell.
    static func running(in group: pid_t) -> Bool {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return true }
        for entry in entries where entry.first?.isNumber == true {
            guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // After "pid (comm)": state, ppid, pgrp.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, Int32(fields[2]) == group else { continue }
            if fields[0] != "Z" && fields[0] != "X" { return true }
        }
        return false
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(min(max(duration, .zero), .seconds(3600)).wholeMilliseconds)
    }
}
