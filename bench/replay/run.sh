#!/bin/sh
# Replay throughput against `conform serve` next to wrk sending the same requests to the same server build in the
# same run, and peak memory replaying a generated recording of 1,000,000 exchanges.
# Usage: bench/replay/run.sh [DEVICES PER_DEVICE] [BIG_DEVICES BIG_PER_DEVICE] [SERVED_PER_DEVICE]
#   defaults: 400 50 (20,000 exchanges), 1000 1000 (1,000,000 exchanges), 100 (100,000 exchanges served)
#   CONFORM_BENCH_PARTS="a b c d" picks the parts to run (d: paced and sharded replays, not run by default);
#   CONFORM_BENCH_CONNECTIONS sets replay --connections; CONFORM_BENCH_RATE the --rate of part d (default 2000).
set -eu
cd "$(dirname "$0")/../.."
. bench/lib/nginx.sh
DEVICES="${1:-400}"; PER_DEVICE="${2:-50}"
BIG_DEVICES="${3:-1000}"; BIG_PER_DEVICE="${4:-1000}"
SERVED_PER_DEVICE="${5:-100}"
DURATION="${CONFORM_BENCH_SECONDS:-5}"
THREADS="${CONFORM_BENCH_THREADS:-2}"
PARTS="${CONFORM_BENCH_PARTS:-a b c}"
CONNECTIONS="${CONFORM_BENCH_CONNECTIONS:-8}"
TICK="$(getconf CLK_TCK)"
swift build -c release --product conform >/dev/null
swift build -c release --product conform-bench-replay >/dev/null
BIN="$(swift build -c release --show-bin-path)"
WORK="$(mktemp -d /tmp/conform-bench-replay.XXXXXX)"
PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT INT TERM

# start_server NAME: a fresh `conform serve` on a free port; sets URL and SERVER_PID.
start_server() {
    "$BIN/conform" serve --port 0 --threads "$THREADS" >"$WORK/$1.out" &
    SERVER_PID=$!
    PIDS="$PIDS $SERVER_PID"
    while ! grep -q "^Serving" "$WORK/$1.out" 2>/dev/null; do sleep 0.1; done
    URL="$(grep -o 'http://[0-9.:]*' "$WORK/$1.out" | head -1)"
}
stop_server() { kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # user + system time of a process, in clock ticks
part() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

if part a; then
echo "# (a) replay throughput: $DEVICES devices x $PER_DEVICE exchanges (M1, M4, then M7/M8 alternating), 3 runs"
# The wrk server holds the state the recording was made against, so every recorded id is live there.
start_server wrk
WRK_URL="$URL"; WRK_PID="$SERVER_PID"
"$BIN/conform-bench-replay" generate "$WORK/mix" --devices "$DEVICES" --per-device "$PER_DEVICE" --target "$WRK_URL"
"$BIN/conform-bench-replay" wrk-script "$WORK/mix" "$WORK/mix.lua"
# null-replay.c: the same requests through libcurl as the replayer drives it, judging nothing (the client's ceiling).
"$BIN/conform-bench-replay" requests "$WORK/mix" "$WORK/mix.requests"
cc -O2 -Wall -o "$WORK/null-replay" bench/replay/null-replay.c -lcurl ||
    { echo "error: cannot compile bench/replay/null-replay.c (apt-get install gcc libcurl4-openssl-dev)" >&2; exit 2; }
TOTAL=$((DEVICES * PER_DEVICE))
: >"$WORK/replay.rate"; : >"$WORK/wrk.rate"; : >"$WORK/null.rate"
for i in 1 2 3; do
    # Each replay gets a fresh server, so minted ids are remapped and every answer must match the recording.
    start_server "replay$i"
    /usr/bin/time -f "%e %U %S" -o "$WORK/time" "$BIN/conform" replay "$WORK/mix" --target "$URL" --quiet \
        --connections "$CONNECTIONS" >"$WORK/replay$i.out" || { cat "$WORK/replay$i.out"; exit 1; }
    served="$(cpu_ticks "$SERVER_PID")"
    stop_server
    read -r secs user sys <"$WORK/time"
    rate="$(echo "$TOTAL $secs" | awk '{printf "%.0f", $1 / $2}')"
    cpu="$(echo "$user $sys $served $TICK $TOTAL" | awk '{printf "replay %.0f us, server %.0f us", ($1 + $2) * 1e6 / $5, $3 / $4 * 1e6 / $5}')"
    echo "conform replay --connections $CONNECTIONS run $i: $rate exchanges/s; CPU per exchange: $cpu ($(grep '^Replayed' "$WORK/replay$i.out" | sed 's/.*: //'))"
    echo "$rate" >>"$WORK/replay.rate"
    before="$(cpu_ticks "$WRK_PID")"
    out="$(wrk -t2 -c32 -d"${DURATION}s" -s "$WORK/mix.lua" "$WRK_URL")"
    after="$(cpu_ticks "$WRK_PID")"
    rps="$(printf '%s\n' "$out" | awk '/Requests\/sec/ {printf "%.0f", $2}')"
    requests="$(printf '%s\n' "$out" | awk '/requests in/ {print $1}')"
    bad="$(printf '%s\n' "$out" | grep -E 'Non-2xx|Socket errors' | tr '\n' ' ' || true)"
    echo "wrk -t2 -c32 -d${DURATION}s run $i: $rps req/s; server CPU per request: $(echo "$before $after $TICK $requests" | awk '{printf "%.0f us", ($2 - $1) / $3 * 1e6 / $4}') $bad"
    echo "$rps" >>"$WORK/wrk.rate"
    before="$(cpu_ticks "$WRK_PID")"
    /usr/bin/time -f "%e %U %S" -o "$WORK/time" "$WORK/null-replay" -f "$WORK/mix.requests" -u "$WRK_URL" \
        -n "$TOTAL" -c "$CONNECTIONS" >"$WORK/null$i.out" || { cat "$WORK/null$i.out"; exit 1; }
    after="$(cpu_ticks "$WRK_PID")"
    read -r secs user sys <"$WORK/time"
    rate="$(echo "$TOTAL $secs" | awk '{printf "%.0f", $1 / $2}')"
    echo "null-replay -c $CONNECTIONS run $i: $rate exchanges/s; CPU per exchange: $(echo "$user $sys $before $after $TICK $TOTAL" | awk '{printf "client %.0f us, server %.0f us", ($1 + $2) * 1e6 / $6, ($4 - $3) / $5 * 1e6 / $6}')"
    echo "$rate" >>"$WORK/null.rate"
done
SERVER_PID="$WRK_PID"; stop_server
REPLAY="$(median <"$WORK/replay.rate")"; WRK="$(median <"$WORK/wrk.rate")"; NULL="$(median <"$WORK/null.rate")"
echo "median: null-replay $NULL exchanges/s, wrk $WRK req/s, ratio $(echo "$NULL $WRK" | awk '{printf "%.2f", $1 / $2}') (libcurl's ceiling as the replayer drives it)"
echo "median: conform replay $REPLAY exchanges/s, null-replay $NULL, ratio $(echo "$REPLAY $NULL" | awk '{printf "%.2f", $1 / $2}')"
echo "median: conform replay $REPLAY exchanges/s, wrk $WRK req/s, ratio $(echo "$REPLAY $WRK" | awk '{printf "%.2f", $1 / $2}') (goal >= 0.5)"
fi

if part d; then
RATE="${CONFORM_BENCH_RATE:-2000}"
echo "# (d) paced and sharded: $DEVICES devices x $PER_DEVICE exchanges, each replay against a fresh server"
start_server gen
"$BIN/conform-bench-replay" generate "$WORK/paced" --devices "$DEVICES" --per-device "$PER_DEVICE" --target "$URL"
stop_server
TOTAL=$((DEVICES * PER_DEVICE))
for i in 1 2 3; do
    start_server "paced$i"
    "$BIN/conform" replay "$WORK/paced" --target "$URL" --quiet --connections "$CONNECTIONS" --rate "$RATE/s" \
        >"$WORK/paced$i.out" || { cat "$WORK/paced$i.out"; exit 1; }
    stop_server
    echo "conform replay --rate $RATE/s run $i: $(grep -E '^(Pace|Latency|Behind)' "$WORK/paced$i.out" | tr '\n' ' ')"
done
for shards in 1 2; do
    for i in 1 2 3; do
        start_server "sharded$shards-$i"
        start="$(date +%s.%N)"
        pids=""
        for k in $(seq "$shards"); do
            "$BIN/conform" replay "$WORK/paced" --target "$URL" --quiet --connections "$CONNECTIONS" \
                --shard "$k/$shards" >"$WORK/shard$k.out" &
            pids="$pids $!"
        done
        for p in $pids; do wait "$p" || { cat "$WORK"/shard*.out; exit 1; }; done
        end="$(date +%s.%N)"
        stop_server
        sent="$(cat "$WORK"/shard*.out | awk '/^Replayed/ {n += $2} END {print n}')"
        echo "$shards shard process(es) side by side, run $i: $sent exchanges in $(echo "$start $end" | awk '{printf "%.2f", $2 - $1}') s, $(echo "$start $end $sent" | awk '{printf "%.0f", $3 / ($2 - $1)}') exchanges/s"
        rm -f "$WORK"/shard*.out
    done
done
fi

if part b; then
BIG=$((BIG_DEVICES * BIG_PER_DEVICE))
echo "# (b) peak memory: $BIG exchanges ($BIG_DEVICES devices x $BIG_PER_DEVICE), in process (--target builtin), 3 runs"
"$BIN/conform-bench-replay" generate "$WORK/big" --devices "$BIG_DEVICES" --per-device "$BIG_PER_DEVICE" --no-redact
echo "recording size: $(du -sh "$WORK/big/exchanges.jsonl" | cut -f1)"
: >"$WORK/big.rss"
for i in 1 2 3; do
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$BIN/conform" replay "$WORK/big" --target builtin --quiet >"$WORK/big$i.out" || { cat "$WORK/big$i.out"; exit 1; }
    read -r secs kb <"$WORK/time"
    echo "conform replay --target builtin run $i: max RSS $((kb / 1024)) MB, $secs s, $(echo "$BIG $secs" | awk '{printf "%.0f", $1 / $2}') exchanges/s ($(grep '^Replayed' "$WORK/big$i.out" | sed 's/.*: //'))"
    echo "$kb" >>"$WORK/big.rss"
done
echo "median max RSS: $(( $(median <"$WORK/big.rss") / 1024 )) MB (goal < 64 MB)"
rm -rf "$WORK/big"
fi

if part c; then
SERVED=$((BIG_DEVICES * SERVED_PER_DEVICE))
echo "# (c) peak memory against the served reference: $SERVED exchanges ($BIG_DEVICES devices x $SERVED_PER_DEVICE), 3 runs"
"$BIN/conform-bench-replay" generate "$WORK/served" --devices "$BIG_DEVICES" --per-device "$SERVED_PER_DEVICE" --no-redact
: >"$WORK/served.rss"
for i in 1 2 3; do
    start_server "served$i"
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$BIN/conform" replay "$WORK/served" --target "$URL" --quiet --connections "$CONNECTIONS" >"$WORK/served$i.out" || { cat "$WORK/served$i.out"; exit 1; }
    stop_server
    read -r secs kb <"$WORK/time"
    echo "conform replay --target URL run $i: max RSS $((kb / 1024)) MB, $secs s, $(echo "$SERVED $secs" | awk '{printf "%.0f", $1 / $2}') exchanges/s ($(grep '^Replayed' "$WORK/served$i.out" | sed 's/.*: //'))"
    echo "$kb" >>"$WORK/served.rss"
done
echo "median max RSS: $(( $(median <"$WORK/served.rss") / 1024 )) MB"
fi
