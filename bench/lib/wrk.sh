# cpu_ticks PIDS: the CPU time (user + system, in clock ticks, all threads) the processes PIDS (comma-separated) have
# used so far.
cpu_ticks() {
    for pid in $(printf '%s' "$1" | tr ',' ' '); do cat "/proc/$pid/stat"; done |
        awk '{ t += $14 + $15 } END { print t + 0 }'
}
# cpu_per_request TICKS REQUESTS: microseconds of CPU per request.
cpu_per_request() { awk -v t="$1" -v hz="$(getconf CLK_TCK)" -v n="$2" 'BEGIN { printf "%.1f", t / hz / n * 1e6 }'; }
# wrk_runs NAME URL [SCRIPT]: three wrk runs (-t2 -c32 for DURATION seconds) with one line each, then the median,
# which is also left in WRK_MEDIAN. Needs WORK (a temp dir), DURATION and `median` (bench/lib/nginx.sh).
# With WRK_CPU_PIDS set (the server's process ids, comma-separated), each line also gives the server's CPU time per
# request.
wrk_runs() {
    : >"$WORK/rps"
    for i in 1 2 3; do
        before="$(cpu_ticks "${WRK_CPU_PIDS:-}")"
        if [ -n "${3:-}" ]; then out="$(wrk -t2 -c32 -d"${DURATION}s" -s "$3" "$2")"; else out="$(wrk -t2 -c32 -d"${DURATION}s" "$2")"; fi
        after="$(cpu_ticks "${WRK_CPU_PIDS:-}")"
        rps="$(printf '%s\n' "$out" | awk '/Requests\/sec/ {print $2}')"
        bad="$(printf '%s\n' "$out" | grep -E 'Non-2xx|Socket errors' | tr '\n' ' ' || true)"
        cpu=""
        if [ -n "${WRK_CPU_PIDS:-}" ]; then
            count="$(printf '%s\n' "$out" | awk '/ requests in / { print $1 }')"
            cpu=", server CPU $(cpu_per_request $((after - before)) "$count") us/request"
        fi
        echo "$1 run $i: $rps req/s$cpu $bad"
        echo "$rps" >>"$WORK/rps"
    done
    WRK_MEDIAN="$(median <"$WORK/rps")"
    echo "$1 median: $WRK_MEDIAN req/s"
}
