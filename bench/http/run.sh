#!/bin/sh
# HTTP server and client benchmark: Conform's HTTPServer and CurlTransport, with nginx as the ceiling.
# Usage: bench/http/run.sh [SECONDS_PER_WRK_RUN] [CLIENT_EXCHANGES]
# Prints one line per run and a median-of-3 summary. Needs wrk and nginx (/usr/sbin/nginx).
set -eu
cd "$(dirname "$0")/../.."
DURATION="${1:-5}"
EXCHANGES="${2:-20000}"
RUNS=3

swift build -c release --product conform-bench-http >/dev/null
BIN="$(swift build -c release --show-bin-path)/conform-bench-http"
WORK="$(mktemp -d)"
SERVER_PID=""
NGINX_PID=""
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

. bench/lib/nginx.sh

# Conform's server: the same static JSON document nginx serves.
"$BIN" serve --port 0 --threads "${CONFORM_BENCH_THREADS:-4}" >"$WORK/server.out" &
SERVER_PID=$!
while ! grep -q listening "$WORK/server.out" 2>/dev/null; do sleep 0.1; done
CONFORM_URL="$(awk '{print $2}' "$WORK/server.out")/health"

# nginx on loopback, serving the same static JSON document (ceiling).
start_static_nginx health '{"status":"ok","service":"conform-bench","items":[1,2,3]}'
curl -fsS "$NGINX_URL" >/dev/null
curl -fsS "$CONFORM_URL" >/dev/null

echo "# wrk -t2 -c32 -d${DURATION}s (server throughput)"
for name in conform nginx; do
    url="$CONFORM_URL"; [ "$name" = nginx ] && url="$NGINX_URL"
    : >"$WORK/$name.rps"; : >"$WORK/$name.lat"
    for run in $(seq $RUNS); do
        out="$(wrk -t2 -c32 -d"${DURATION}s" "$url")"
        rps="$(printf '%s\n' "$out" | awk '/Requests\/sec/ {print $2}')"
        lat="$(printf '%s\n' "$out" | awk '/Latency/ {print $2; exit}')"
        errors="$(printf '%s\n' "$out" | grep -E 'Non-2xx|Socket errors' || true)"
        echo "$name run $run: $rps req/s, avg latency $lat ${errors}"
        echo "$rps" >>"$WORK/$name.rps"; echo "$lat" >>"$WORK/$name.lat"
    done
    echo "$name median: $(median <"$WORK/$name.rps") req/s"
done

echo "# conform-bench-http client URL $EXCHANGES TASKS (CurlTransport cost per exchange)"
for name in conform nginx; do
    url="$CONFORM_URL"; [ "$name" = nginx ] && url="$NGINX_URL"
    for tasks in 1 8; do
        : >"$WORK/client.us"; : >"$WORK/client.rps"
        for run in $(seq $RUNS); do
            line="$("$BIN" client "$url" "$EXCHANGES" "$tasks")"
            echo "$name tasks=$tasks run $run: $line"
            printf '%s\n' "$line" | sed 's/.*us_per_exchange=\([0-9.]*\).*/\1/' >>"$WORK/client.us"
            printf '%s\n' "$line" | sed 's/.*req_per_s=\([0-9]*\).*/\1/' >>"$WORK/client.rps"
        done
        echo "$name tasks=$tasks median: $(median <"$WORK/client.rps") req/s, $(median <"$WORK/client.us") us/exchange (wall)"
    done
done
