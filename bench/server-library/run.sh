#!/bin/sh
# Where the HTTP server library puts the ceiling of `conform serve` (docs/performance.md, "`conform serve`"): nginx
# serving a static JSON file; a do-nothing libmicrohttpd server in C started with ConformServer's flags and options,
# answering at once (as `conform serve` does) and with deferred answers (suspend and resume, as the recorder does);
# ConformServer's own HTTPServer with a static handler (bench/http's conform-bench-http, Swift); and a do-nothing
# libh2o server in C (HTTP/1.1, its own event loop on 2 threads). All answer the same 88-byte JSON document.
# wrk -t2 -c32 on loopback, a GET and a POST like the registration's, servers alternating, three runs each; prints
# every run, then medians, p99 latency and the ratio of each median to nginx's.
# Installs wrk, nginx-light, libmicrohttpd-dev and libh2o-evloop-dev from Debian when missing, compiles the two C
# servers beside it (mhd-null.c, h2o-null.c) with cc and builds conform-bench-http in release. About 3 minutes at
# 5 s a run. CONFORM_BENCH_SWIFT=0 leaves out the Swift server; CONFORM_BENCH_TUNING=1 adds libmicrohttpd variants
# (thread pool, connection memory, MHD_USE_TURBO) to the rounds.
# Usage: bench/server-library/run.sh [SECONDS_PER_RUN]
set -eu
cd "$(dirname "$0")/../.."
DURATION="${1:-5}"
HERE=bench/server-library
# shellcheck source=bench/lib/nginx.sh
. bench/lib/nginx.sh
# shellcheck source=bench/lib/wrk.sh
. bench/lib/wrk.sh

missing=""
for package in wrk nginx-light libmicrohttpd-dev libh2o-evloop-dev libssl-dev gcc; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $package"
done
command -v /usr/sbin/nginx >/dev/null && missing="$(printf '%s\n' "$missing" | sed 's/ nginx-light//')"
if [ -n "$missing" ]; then
    echo "installing from Debian:$missing"
    # shellcheck disable=SC2086 # one word per package
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
        { echo "error: cannot install$missing (run as root, or apt-get install them first)" >&2; exit 2; }
fi

WORK="$(mktemp -d /tmp/conform-bench-server-library.XXXXXX)"
PIDS=""
NGINX_PID=""
cleanup() {
    for pid in $PIDS $NGINX_PID; do kill "$pid" 2>/dev/null || true; done
    for pid in $PIDS $NGINX_PID; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() { echo "error: $*" >&2; exit 2; }

cc -O2 -Wall -o "$WORK/mhd-null" "$HERE/mhd-null.c" -lmicrohttpd -lpthread ||
    fail "cannot compile $HERE/mhd-null.c against libmicrohttpd"
cc -O2 -Wall -o "$WORK/h2o-null" "$HERE/h2o-null.c" -lh2o-evloop -lssl -lcrypto -lpthread ||
    fail "cannot compile $HERE/h2o-null.c against libh2o-evloop"

ANSWER='{"pushRegId":"0f8fad5b-d9cb-469f-a165-70867728950e","regEnabled":true,"isPrimary":false}'
# The static module answers POST with 405; this serves the same file to POST too (nginx reads and drops the body).
# shellcheck disable=SC2016,SC2034 # $uri is nginx's variable; bench/lib/nginx.sh reads this
NGINX_SERVER_EXTRA='error_page 405 =200 $uri;'
start_static_nginx static.json "$ANSWER" || fail "nginx did not start"
NGINX_PATH="/static.json"
NGINX_BASE="${NGINX_URL%"$NGINX_PATH"}"

# The servers, one a line: a short name, then the command. Each prints "listening PORT" once it serves.
cat >"$WORK/servers" <<LIST
mhd $WORK/mhd-null -t 2
mhd-deferred $WORK/mhd-null -t 2 -d
LIST
if [ "${CONFORM_BENCH_SWIFT:-1}" = 1 ]; then
    swift build -c release --product conform-bench-http >"$WORK/build.log" 2>&1 ||
        fail "cannot build conform-bench-http: $(tail -20 "$WORK/build.log")"
    SWIFT_SERVER="$(swift build -c release --show-bin-path)/conform-bench-http"
    echo "conform-httpserver $SWIFT_SERVER serve --threads 2 --answer $ANSWER" >>"$WORK/servers"
fi
echo "h2o $WORK/h2o-null -t 2" >>"$WORK/servers"
# The tuning variants: the thread pool; the connection memory, which libmicrohttpd clears whenever a keep-alive
# connection starts its next request (ConformServer sizes it from its limits, HTTPServerLimits.connectionMemoryBytes:
# 62 KB by default; 144 KB before heads were limited to 16 KB); MHD_USE_TURBO; and ConformServer's HTTPServer with
# a 64 KB head limit (122 KB of connection memory).
if [ "${CONFORM_BENCH_TUNING:-0}" = 1 ]; then
    cat >>"$WORK/servers" <<LIST
mhd-t1 $WORK/mhd-null -t 1
mhd-t4 $WORK/mhd-null -t 4
mhd-144k $WORK/mhd-null -t 2 -m 147456
mhd-32k $WORK/mhd-null -t 2 -m 32768
mhd-turbo $WORK/mhd-null -t 2 -T
LIST
    if [ -n "${SWIFT_SERVER:-}" ]; then
        echo "conform-httpserver-64k $SWIFT_SERVER serve --threads 2 --max-header-bytes 65536 --answer $ANSWER" \
            >>"$WORK/servers"
    fi
fi

POST_BODY='{"pushServiceToken":"fcm-bench","pushServiceType":"Firebase","os":"Android"}'
# Fails unless WHO answers GET and POST of URL with the bench's answer.
check_answer() {
    got="$(curl -fsS "$2")" || fail "$1 does not answer GET $2"
    [ "$got" = "$ANSWER" ] || fail "$1 answers GET $2 with '$got', not the bench's answer"
    got="$(curl -fsS -H 'Content-Type: application/json' -d "$POST_BODY" "$2")" || fail "$1 does not answer POST $2"
    [ "$got" = "$ANSWER" ] || fail "$1 answers POST $2 with '$got', not the bench's answer"
}
check_answer nginx "$NGINX_URL"

# Starts one server, waits up to 5 s for its port, checks that it gives the answer to GET and POST.
start_server() {
    name="$1"
    shift
    "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
    pid=$!
    PIDS="$PIDS $pid"
    for _ in $(seq 50); do
        grep -q '^listening ' "$WORK/$name.out" 2>/dev/null && break
        kill -0 "$pid" 2>/dev/null || fail "server $name ($*) exited before listening: $(cat "$WORK/$name.err")"
        sleep 0.1
    done
    port="$(sed -n 's/^listening \(.*:\)\{0,1\}\([0-9][0-9]*\)$/\2/p' "$WORK/$name.out")"
    [ -n "$port" ] || fail "server $name ($*) did not say which port it listens on within 5 s"
    base="http://127.0.0.1:$port"
    check_answer "server $name ($*)" "$base$NGINX_PATH"
    echo "$name $base $pid" >>"$WORK/bases"
}
: >"$WORK/bases"
echo "nginx $NGINX_BASE $(pgrep -P "$NGINX_PID" | paste -sd, -)" >>"$WORK/bases"
set -f
while read -r name command; do
    # shellcheck disable=SC2086 # the command's words
    start_server "$name" $command
done <"$WORK/servers"
set +f
cat >"$WORK/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Authorization"] = "App conform-app-code"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '$POST_BODY'
LUA
: >"$WORK/get.lua"

# One wrk run: appends "rps p99_ms cpu_us wrk_cpu_us" to WORK/NAME.METHOD and prints the run; refuses a run with
# non-2xx answers. cpu_us is the server's CPU time per answered request (all its threads or workers), wrk_cpu_us
# wrk's own.
measure() {
    name="$1" method="$2" url="$3" pids="$4" round="$5"
    script="$WORK/get.lua"
    [ "$method" = POST ] && script="$WORK/post.lua"
    before="$(cpu_ticks "$pids")"
    out="$(/usr/bin/time -f '%U %S' -o "$WORK/wrk.time" wrk -t2 -c32 -d"${DURATION}s" --latency -s "$script" "$url")" ||
        fail "wrk failed against $name ($url)"
    after="$(cpu_ticks "$pids")"
    rps="$(printf '%s\n' "$out" | awk '/^Requests\/sec/ { print $2 }')"
    count="$(printf '%s\n' "$out" | awk '/ requests in / { print $1 }')"
    p99="$(printf '%s\n' "$out" | awk '$1 == "99%" {
        v = $2; unit = v; sub(/[0-9.]+/, "", unit); sub(/[a-z]+$/, "", v)
        print (unit == "us" ? v / 1000 : unit == "s" ? v * 1000 : v) }')"
    { [ -n "$rps" ] && [ -n "$p99" ] && [ -n "$count" ] && [ "$count" -gt 0 ]; } ||
        fail "cannot read wrk's figures for $name $method: $out"
    if printf '%s\n' "$out" | grep -q 'Non-2xx'; then
        fail "$name answered $method with non-2xx statuses: $(printf '%s\n' "$out" | grep -E 'Non-2xx|Socket errors')"
    fi
    cpu="$(cpu_per_request $((after - before)) "$count")"
    wrk_cpu="$(awk -v n="$count" '{ printf "%.1f", ($1 + $2) / n * 1e6 }' "$WORK/wrk.time")"
    errors="$(printf '%s\n' "$out" | grep 'Socket errors' || true)"
    printf '%s %s run %s: %s req/s, p99 %s ms, server CPU %s us/request, wrk CPU %s us/request %s\n' "$name" \
        "$method" "$round" "$rps" "$p99" "$cpu" "$wrk_cpu" "$errors"
    echo "$rps $p99 $cpu $wrk_cpu" >>"$WORK/$name.$method"
}

echo "# wrk -t2 -c32 -d${DURATION}s --latency, GET and POST (registration-like body), servers alternating, 3 rounds"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in 1 2 3; do
    while read -r name base pids; do
        for method in GET POST; do measure "$name" "$method" "$base$NGINX_PATH" "$pids" "$round"; done
    done <"$WORK/bases"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# The medians: req/s with the p99 of the same run, and the median CPU per request; then the table.
median_of() {
    sort -n "$WORK/$1.$2" | awk '{ rps[NR] = $1; p99[NR] = $2 } END { m = int((NR + 1) / 2); print rps[m], p99[m] }'
}
# median_column NAME METHOD COLUMN: the median of one column of the runs.
median_column() {
    awk -v c="$3" '{ print $c }' "$WORK/$1.$2" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
runs_of() { awk '{ printf "%s%.1fk", (NR > 1 ? " / " : ""), $1 / 1000 }' "$WORK/$1.$2"; }
NGINX_GET="$(median_of nginx GET | cut -d' ' -f1)"
echo
printf '| server (do-nothing handler) | request | req/s, median (runs) | p99 | CPU per request: server, wrk |'
echo ' of nginx, same request | of nginx GET |'
echo "|---|---|---|---|---|---|---|"
: >"$WORK/medians"
while read -r name _ _; do
    for method in GET POST; do
        nginx_same="$(median_of nginx "$method" | cut -d' ' -f1)"
        # shellcheck disable=SC2046 # two words: the median and its run's p99
        set -- $(median_of "$name" "$method") "$(median_column "$name" "$method" 3)" "$nginx_same" \
            "$(median_column "$name" "$method" 4)"
        same="$(awk -v a="$1" -v b="$4" 'BEGIN { printf "%.2f", a / b }')"
        of_get="$(awk -v a="$1" -v b="$NGINX_GET" 'BEGIN { printf "%.2f", a / b }')"
        printf '| %s | %s | %.0f (%s) | %s ms | %s µs, %s µs | %s | %s |\n' "$name" "$method" "$1" \
            "$(runs_of "$name" "$method")" "$2" "$3" "$5" "$same" "$of_get"
        echo "median: $name $method $1 req/s p99 $2 ms cpu $3 us wrk $5 us ratio $same of-nginx-get $of_get" \
            >>"$WORK/medians"
    done
done <"$WORK/bases"
echo
# One line per server and request, for bench/targets.sh.
cat "$WORK/medians"
