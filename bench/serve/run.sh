#!/bin/sh
# `conform serve` under wrk on loopback, next to nginx serving a static JSON file in the same run.
# Usage: [CONFORM_BINARY=PATH] bench/serve/run.sh [SECONDS_PER_RUN]   (3 runs each; prints medians)
set -eu
cd "$(dirname "$0")/../.."
DURATION="${1:-5}"
. bench/lib/nginx.sh
. bench/lib/wrk.sh
# CONFORM_BINARY=PATH measures that build instead (e.g. a copy kept from before a change, run alternately with the new
# one on the same box).
if [ -n "${CONFORM_BINARY:-}" ]; then
    BIN="$CONFORM_BINARY"
else
    swift build -c release --product conform >/dev/null
    BIN="$(swift build -c release --show-bin-path)/conform"
fi
WORK="$(mktemp -d)"
SERVER_PID=""; NGINX_PID=""
cleanup() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT INT TERM

# A fresh server for each scenario, keeping up to 4 GB: the registration runs add several hundred thousand
# installations, and the default 64 MB would turn the later ones into 507 answers rather than measure them.
start_server() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
    : >"$WORK/serve.out"
    "$BIN" serve --port 0 --threads "${CONFORM_BENCH_THREADS:-2}" --max-stored 4GB >"$WORK/serve.out" &
    SERVER_PID=$!
    while ! grep -q "^Serving" "$WORK/serve.out" 2>/dev/null; do sleep 0.1; done
    BASE="$(grep -o 'http://[0-9.:]*' "$WORK/serve.out" | head -1)"
}
start_server
start_static_nginx

# Personalize: one device registered on a fresh server; wrk repeats the same personalize (idempotent, D3).
register_one() {
    curl -fsS -X POST "$BASE/mobile/1/appinstance?ri=true" -H 'Authorization: App conform-app-code' \
        -H 'Content-Type: application/json' -d '{"pushServiceToken":"bench","pushServiceType":"Firebase"}' |
        sed 's/.*"pushRegId":"\([^"]*\)".*/\1/'
}
cat >"$WORK/register.lua" <<LUA
wrk.method = "POST"
wrk.path = "/mobile/1/appinstance?ri=true"
wrk.headers["Authorization"] = "App conform-app-code"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"pushServiceToken":"fcm-bench","pushServiceType":"Firebase","os":"Android"}'
LUA
cat >"$WORK/personalize.template" <<LUA
wrk.method = "POST"
wrk.path = "/mobile/1/appinstance/REG/personalize?forceDepersonalize=false&keepAsLead=false&setDeviceAsPrimary=false"
wrk.headers["Authorization"] = "App conform-app-code"
wrk.headers["pushregistrationid"] = "REG"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"userIdentity":{"externalUserId":"bench-user"},"userAttributes":{"firstName":"Ana"}}'
LUA

# Each run also gives the server's CPU time per request (nginx: its workers), a figure the other builds on the box
# disturb less than the rate.
nginx_run() { WRK_CPU_PIDS="$(pgrep -P "$NGINX_PID" | paste -sd, -)" wrk_runs "$@"; }
run() { WRK_CPU_PIDS="$SERVER_PID" wrk_runs "$@"; }
echo "# wrk -t2 -c32 -d${DURATION}s, 3 runs each"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
nginx_run "nginx static JSON" "$NGINX_URL"
run "conform serve: registration (M1)" "$BASE" "$WORK/register.lua"
echo "conform serve RSS after the registration runs: $(ps -o rss= -p "$SERVER_PID") KB"
start_server
REG="$(register_one)"
sed "s|REG|$REG|g" "$WORK/personalize.template" >"$WORK/personalize.lua"
run "conform serve: personalize (M4)" "$BASE" "$WORK/personalize.lua"
nginx_run "nginx static JSON (again)" "$NGINX_URL"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
