#!/bin/sh
# Where the HTTP server library puts the ceiling of `conform serve` (docs/performance.md, "`conform serve`"): nginx
# serving a static JSON file, a do-nothing libmicrohttpd server started with ConformServer's flags and options
# (answering at once, as `conform serve` does, and with deferred answers, as the recorder does) and a do-nothing
# libh2o server (HTTP/1.1, its own event loop on 2 threads), all answering the same 88-byte JSON document.
# wrk -t2 -c32 on loopback, a GET and a POST like the registration's, servers alternating, three runs each; prints
# every run, then medians, p99 latency and the ratio of each median to nginx's.
# Installs wrk, nginx-light, libmicrohttpd-dev and libh2o-evloop-dev from Debian when missing and compiles the two
# C servers beside it (mhd-null.c, h2o-null.c) with cc. About 2.5 minutes at 5 s a run.
# CONFORM_BENCH_TUNING=1 adds libmicrohttpd variants (thread pool, connection memory, MHD_USE_TURBO) to the rounds.
# Usage: bench/server-library/run.sh [SECONDS_PER_RUN]
set -eu
cd "$(dirname "$0")/../.."
DURATION="${1:-5}"
HERE=bench/server-library
# shellcheck source=bench/lib/nginx.sh
. bench/lib/nginx.sh

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
h2o $WORK/h2o-null -t 2
LIST
if [ "${CONFORM_BENCH_TUNING:-0}" = 1 ]; then
    cat >>"$WORK/servers" <<LIST
mhd-t1 $WORK/mhd-null -t 1
mhd-t4 $WORK/mhd-null -t 4
mhd-32k $WORK/mhd-null -t 2 -m 32768
mhd-turbo $WORK/mhd-null -t 2 -T
mhd-32k-turbo $WORK/mhd-null -t 2 -m 32768 -T
LIST
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
    port="$(sed -n 's/^listening \([0-9]*\)$/\1/p' "$WORK/$name.out")"
    [ -n "$port" ] || fail "server $name ($*) did not say which port it listens on within 5 s"
    base="http://127.0.0.1:$port"
    check_answer "server $name ($*)" "$base$NGINX_PATH"
    echo "$name $base" >>"$WORK/bases"
}
: >"$WORK/bases"
echo "nginx $NGINX_BASE" >>"$WORK/bases"
while read -r name command; do
    # shellcheck disable=SC2086 # the command's words
    start_server "$name" $command
done <"$WORK/servers"
cat >"$WORK/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Authorization"] = "App conform-app-code"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '$POST_BODY'
LUA
: >"$WORK/get.lua"

# One wrk run: appends "rps p99_ms" to WORK/NAME.METHOD and prints the run; refuses a run with non-2xx answers.
measure() {
    name="$1" method="$2" url="$3" round="$4"
    script="$WORK/get.lua"
    [ "$method" = POST ] && script="$WORK/post.lua"
    out="$(wrk -t2 -c32 -d"${DURATION}s" --latency -s "$script" "$url")" ||
        fail "wrk failed against $name ($url)"
    rps="$(printf '%s\n' "$out" | awk '/^Requests\/sec/ { print $2 }')"
    p99="$(printf '%s\n' "$out" | awk '$1 == "99%" {
        v = $2; unit = v; sub(/[0-9.]+/, "", unit); sub(/[a-z]+$/, "", v)
        print (unit == "us" ? v / 1000 : unit == "s" ? v * 1000 : v) }')"
    { [ -n "$rps" ] && [ -n "$p99" ]; } || fail "cannot read wrk's figures for $name $method: $out"
    if printf '%s\n' "$out" | grep -q 'Non-2xx'; then
        fail "$name answered $method with non-2xx statuses: $(printf '%s\n' "$out" | grep -E 'Non-2xx|Socket errors')"
    fi
    errors="$(printf '%s\n' "$out" | grep 'Socket errors' || true)"
    printf '%s %s run %s: %s req/s, p99 %s ms %s\n' "$name" "$method" "$round" "$rps" "$p99" "$errors"
    echo "$rps $p99" >>"$WORK/$name.$method"
}

echo "# wrk -t2 -c32 -d${DURATION}s --latency, GET and POST (registration-like body), servers alternating, 3 rounds"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in 1 2 3; do
    while read -r name base; do
        for method in GET POST; do measure "$name" "$method" "$base$NGINX_PATH" "$round"; done
    done <"$WORK/bases"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# The medians (req/s and the p99 of the same run), then the table.
median_of() { sort -n "$WORK/$1.$2" | awk '{ rps[NR] = $1; p99[NR] = $2 } END { m = int((NR + 1) / 2); print rps[m], p99[m] }'; }
runs_of() { awk '{ printf "%s%.1fk", (NR > 1 ? " / " : ""), $1 / 1000 }' "$WORK/$1.$2"; }
# shellcheck disable=SC2046 # four words: the medians and their p99
set -- $(median_of nginx GET) $(median_of nginx POST)
NGINX_GET="$1" NGINX_POST="$3"
echo
echo "| server (do-nothing handler) | GET req/s (runs) | p99 | of nginx | POST req/s (runs) | p99 | of nginx |"
echo "|---|---|---|---|---|---|---|"
while read -r name _; do
    # shellcheck disable=SC2046 # as above
    set -- $(median_of "$name" GET) $(median_of "$name" POST)
    get_ratio="$(awk -v a="$1" -v b="$NGINX_GET" 'BEGIN { printf "%.2f", a / b }')"
    post_ratio="$(awk -v a="$3" -v b="$NGINX_POST" 'BEGIN { printf "%.2f", a / b }')"
    printf '| %s | %.0f (%s) | %s ms | %s | %.0f (%s) | %s ms | %s |\n' "$name" "$1" "$(runs_of "$name" GET)" "$2" \
        "$get_ratio" "$3" "$(runs_of "$name" POST)" "$4" "$post_ratio"
    echo "$name $1 $2 $get_ratio $3 $4 $post_ratio" >>"$WORK/medians"
done <"$WORK/bases"
echo
# One line per server for bench/targets.sh.
while read -r name get get_p99 get_ratio post post_p99 post_ratio; do
    echo "median: $name GET $get req/s p99 $get_p99 ms ratio $get_ratio; POST $post req/s p99 $post_p99 ms ratio $post_ratio"
done <"$WORK/medians"
