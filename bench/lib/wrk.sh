# wrk_runs NAME URL [SCRIPT]: three wrk runs (-t2 -c32 for DURATION seconds) with one line each, then the median,
# which is also left in WRK_MEDIAN. Needs WORK (a temp dir), DURATION and `median` (bench/lib/nginx.sh).
wrk_runs() {
    : >"$WORK/rps"
    for i in 1 2 3; do
        if [ -n "${3:-}" ]; then out="$(wrk -t2 -c32 -d"${DURATION}s" -s "$3" "$2")"; else out="$(wrk -t2 -c32 -d"${DURATION}s" "$2")"; fi
        rps="$(printf '%s\n' "$out" | awk '/Requests\/sec/ {print $2}')"
        bad="$(printf '%s\n' "$out" | grep -E 'Non-2xx|Socket errors' | tr '\n' ' ' || true)"
        echo "$1 run $i: $rps req/s $bad"
        echo "$rps" >>"$WORK/rps"
    done
    WRK_MEDIAN="$(median <"$WORK/rps")"
    echo "$1 median: $WRK_MEDIAN req/s"
}
