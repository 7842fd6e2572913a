#!/bin/sh
# `conform record` as a reverse proxy in front of an upstream, next to nginx `proxy_pass` in front of the same
# upstream, in one run: wrk -t2 -c32 with POST bodies through each front (and straight at the upstream, for the
# latency the fronts add), three runs each, alternating. Every exchange the recorder answered must be in its
# recording: the script counts the lines of exchanges.jsonl against wrk's own count of completed requests.
# Four more fronts record nothing, to show where the ceiling is: null-proxy.c beside this script, a proxy in C on the
# recorder's two libraries used as the recorder uses them (-l: one loop a core, at most four, each with its own
# libcurl multi handle and its own libmicrohttpd daemon on copies of one listening socket, connections suspended while
# upstream), which is the rate those libraries allow before the recorder does any work of its own; the same libraries
# as the recorder used them before its listener joined libcurl's loops (a pool of four server threads handing each
# request to one libcurl thread); the same with each of 16 server threads sending its request itself (blocking
# libcurl); and libh2o's own reverse proxy (bench/server-library/h2o-null.c -u), another server library from Debian
# with its own HTTP client.
# The recorder's own CPU per exchange (utime + stime from /proc over its runs, divided by the requests wrk completed
# through it) is printed beside its rate: less sensitive to a loaded box than the rate. CONFORM_BINARY_BEFORE=PATH
# starts a second recorder from another build and alternates it with the first in every round, to compare two builds
# in one session.
# Usage: bench/record/run.sh [SECONDS_PER_RUN]   (CONFORM_BINARY=PATH skips the release build)
# Installs wrk, nginx, gcc and the two libraries' headers from Debian when missing.
set -eu
cd "$(dirname "$0")/../.."
DURATION="${1:-5}"
missing=""
for package in wrk nginx-light gcc libmicrohttpd-dev libcurl4-openssl-dev libh2o-evloop-dev libssl-dev; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $package"
done
[ -x /usr/sbin/nginx ] && missing="$(printf '%s\n' "$missing" | sed 's/ nginx-light//')"
if [ -n "$missing" ]; then
    # shellcheck disable=SC2086 # one word per package
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
        { echo "error: cannot install$missing (run as root, or apt-get install them first)" >&2; exit 2; }
fi
if [ -z "${CONFORM_BINARY:-}" ]; then
    swift build -c release --product conform >/dev/null
    CONFORM_BINARY="$(swift build -c release --show-bin-path)/conform"
fi
. bench/lib/nginx.sh
WORK="$(mktemp -d)"
chmod 755 "$WORK"
RECORD_PID=""; UP_PID=""; FRONT_PID=""; NULL_PID=""; THREADS_PID=""; BLOCKING_PID=""; H2O_PID=""; BEFORE_PID=""
cleanup() {
    for pid in "$RECORD_PID" "$FRONT_PID" "$UP_PID" "$NULL_PID" "$THREADS_PID" "$BLOCKING_PID" "$H2O_PID" "$BEFORE_PID"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# nginx_conf NAME PORT LOCATION-BODY: one nginx instance on 127.0.0.1:PORT (2 workers, access log off).
nginx_conf() {
    mkdir -p "$WORK/$1"
    cat >"$WORK/$1/nginx.conf" <<CONF
worker_processes 2;
daemon off;
pid $WORK/$1/nginx.pid;
error_log $WORK/$1/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $WORK/$1/body;
    proxy_temp_path $WORK/$1/proxy;
    fastcgi_temp_path $WORK/$1/fastcgi;
    uwsgi_temp_path $WORK/$1/uwsgi;
    scgi_temp_path $WORK/$1/scgi;
    keepalive_requests 1000000;
    upstream up { server 127.0.0.1:$UP_PORT; keepalive 64; }
    server {
        listen 127.0.0.1:$2;
        default_type application/json;
        location / { $3 }
    }
}
CONF
    /usr/sbin/nginx -c "$WORK/$1/nginx.conf" -p "$WORK/$1" 2>"$WORK/$1/stderr" &
}
wait_up() {
    for _ in $(seq 100); do curl -fsS -o /dev/null -X POST -d '{}' "$1" 2>/dev/null && return 0; sleep 0.1; done
    echo "$2 did not start" >&2
    exit 1
}

# The upstream answers every POST with a registration-like document; the front nginx keeps upstream connections
# alive (HTTP/1.1, no Connection header), as the recorder does.
UP_PORT="$(free_port)"
nginx_conf upstream "$UP_PORT" \
    "return 200 '{\"pushRegId\":\"0f8fad5b-d9cb-469f-a165-70867728950e\",\"regEnabled\":true,\"isPrimary\":false}';"
UP_PID=$!
UP_URL="http://127.0.0.1:$UP_PORT"
wait_up "$UP_URL/mobile/1/appinstance" "the upstream nginx"
FRONT_PORT="$(free_port)"
nginx_conf front "$FRONT_PORT" \
    "proxy_pass http://up; proxy_http_version 1.1; proxy_set_header Connection \"\";"
FRONT_PID=$!
FRONT_URL="http://127.0.0.1:$FRONT_PORT"
wait_up "$FRONT_URL/mobile/1/appinstance" "nginx proxy_pass"

cc -O2 -Wall -o "$WORK/null-proxy" bench/record/null-proxy.c -lmicrohttpd -lcurl -lpthread ||
    { echo "error: cannot compile bench/record/null-proxy.c" >&2; exit 2; }
cc -O2 -Wall -o "$WORK/h2o-null" bench/server-library/h2o-null.c -lh2o-evloop -lssl -lcrypto -lpthread ||
    { echo "error: cannot compile bench/server-library/h2o-null.c" >&2; exit 2; }
# start_c NAME COMMAND...: a C front that prints "listening PORT"; sets C_PID and C_URL.
start_c() {
    name="$1"; shift
    "$@" >"$WORK/$name.out" &
    C_PID=$!
    for _ in $(seq 100); do grep -q '^listening ' "$WORK/$name.out" 2>/dev/null && break; sleep 0.1; done
    C_URL="http://127.0.0.1:$(awk '{print $2}' "$WORK/$name.out")"
    wait_up "$C_URL/mobile/1/appinstance" "$name"
}
# As many loops as `conform record` runs: one a core, at most four.
LOOPS="$(nproc)"; [ "$LOOPS" -le 4 ] || LOOPS=4
start_c null-proxy "$WORK/null-proxy" -u "$UP_URL" -l "$LOOPS"
NULL_PID="$C_PID"; NULL_URL="$C_URL"
start_c threads "$WORK/null-proxy" -u "$UP_URL"
THREADS_PID="$C_PID"; THREADS_URL="$C_URL"
start_c blocking "$WORK/null-proxy" -u "$UP_URL" -b -t 16
BLOCKING_PID="$C_PID"; BLOCKING_URL="$C_URL"
start_c h2o "$WORK/h2o-null" -t 2 -u "$UP_URL"
H2O_PID="$C_PID"; H2O_URL="$C_URL"

# start_recorder NAME BINARY: `conform record` into WORK/NAME-recording; sets R_PID and R_URL.
start_recorder() {
    "$2" record --upstream "$UP_URL" --out "$WORK/$1-recording" --listen 127.0.0.1:0 \
        >"$WORK/$1.out" 2>"$WORK/$1.err" &
    R_PID=$!
    for _ in $(seq 100); do grep -q '^Recording on ' "$WORK/$1.out" 2>/dev/null && break; sleep 0.1; done
    R_URL="$(grep -o 'http://[0-9.:]*' "$WORK/$1.out" | head -1)"
    [ -n "$R_URL" ] || { echo "conform record ($2) did not start: $(cat "$WORK/$1.err")" >&2; exit 1; }
}
start_recorder record "$CONFORM_BINARY"
RECORD_PID="$R_PID"; RECORD_URL="$R_URL"
if [ -n "${CONFORM_BINARY_BEFORE:-}" ]; then
    start_recorder before "$CONFORM_BINARY_BEFORE"
    BEFORE_PID="$R_PID"; BEFORE_URL="$R_URL"
fi
# cpu_ticks PID: the process's utime + stime so far, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
TICKS="$(getconf CLK_TCK)"

cat >"$WORK/post.lua" <<'LUA'
wrk.method = "POST"
wrk.path = "/mobile/1/appinstance?ri=true"
wrk.headers["Authorization"] = "App conform-bench-app-code"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"pushServiceToken":"fcm-bench","pushServiceType":"Firebase","os":"Android","osVersion":"14"}'
LUA

# one NAME URL [PID]: a wrk run, its rate, p99 latency and completed requests appended to WORK/NAME; with PID, the
# CPU that process spent per completed request (µs) appended to WORK/cpu-NAME.
one() {
    if [ -n "${3:-}" ]; then t0="$(cpu_ticks "$3")"; fi
    out="$(wrk -t2 -c32 -d"${DURATION}s" --latency -s "$WORK/post.lua" "$2")"
    rps="$(printf '%s\n' "$out" | awk '/Requests\/sec/ {print $2}')"
    p99="$(printf '%s\n' "$out" | awk '$1 == "99%" {print $2}')"
    done_count="$(printf '%s\n' "$out" | awk '/requests in/ {print $1}')"
    bad="$(printf '%s\n' "$out" | grep -E 'Non-2xx|Socket errors' | tr '\n' ' ' || true)"
    cpu=""
    if [ -n "${3:-}" ]; then
        cpu="$(awk -v a="$t0" -v b="$(cpu_ticks "$3")" -v n="$done_count" -v t="$TICKS" \
            'BEGIN { printf "%.1f", (b - a) / t * 1e6 / n }')"
        echo "$cpu" >>"$WORK/cpu-$1"
        cpu=", $cpu us of its CPU per request"
    fi
    echo "$1: $rps req/s, p99 $p99, $done_count requests$cpu, load $(cut -d' ' -f1 /proc/loadavg) $bad"
    echo "$rps $p99 $done_count" >>"$WORK/runs-$1"
}
echo "# wrk -t2 -c32 -d${DURATION}s, POST bodies, 3 runs each, alternating"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2 3; do
    one upstream "$UP_URL"
    one nginx "$FRONT_URL"
    one null-proxy "$NULL_URL"
    one null-threads "$THREADS_URL"
    one null-blocking "$BLOCKING_URL"
    one h2o-proxy "$H2O_URL"
    one record "$RECORD_URL" "$RECORD_PID"
    if [ -n "$BEFORE_PID" ]; then one record-before "$BEFORE_URL" "$BEFORE_PID"; fi
done
# Added latency: under saturation every front queues, so the p99s above say more about queues than about what a
# front adds; one connection at a time shows what each hop costs a single exchange.
LATENCY_SECONDS="${CONFORM_BENCH_LATENCY_SECONDS:-3}"
lone() {
    out="$(wrk -t1 -c1 -d"${LATENCY_SECONDS}s" --latency -s "$WORK/post.lua" "$2")"
    p50="$(printf '%s\n' "$out" | awk '$1 == "50%" {print $2}')"
    p99="$(printf '%s\n' "$out" | awk '$1 == "99%" {print $2}')"
    done_count="$(printf '%s\n' "$out" | awk '/requests in/ {print $1}')"
    echo "$1 at one connection: p50 $p50, p99 $p99, $done_count requests"
    echo "$p50 $p99 $done_count" >>"$WORK/lone-$1"
}
echo "# wrk -t1 -c1 -d${LATENCY_SECONDS}s, the same POST, 3 runs each, alternating"
for i in 1 2 3; do
    lone upstream "$UP_URL"
    lone nginx "$FRONT_URL"
    lone h2o-proxy "$H2O_URL"
    lone record "$RECORD_URL"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# Stop the recorder (SIGINT flushes and closes the recording), then count what it wrote.
kill -INT "$RECORD_PID"
wait "$RECORD_PID" || true
RECORD_PID=""
recorded="$(wc -l <"$WORK/record-recording/exchanges.jsonl")"
if [ -n "$BEFORE_PID" ]; then
    kill -INT "$BEFORE_PID"
    wait "$BEFORE_PID" || true
    BEFORE_PID=""
    before_recorded="$(wc -l <"$WORK/before-recording/exchanges.jsonl")"
    before_answered="$(awk '{s += $3} END {print s}' "$WORK/runs-record-before")"
fi
answered="$(cat "$WORK/runs-record" "$WORK/lone-record" | awk '{s += $3} END {print s}')"

col() { awk -v c="$2" '{print $c}' "$WORK/runs-$1" | median; }
# p99 as wrk prints it (us, ms or s) in milliseconds.
ms() { awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /[0-9]s$/) n *= 1000; printf "%.3f", n }'; }
p99_of() { for v in $(awk '{print $2}' "$WORK/runs-$1"); do ms "$v"; echo; done | median; }
up="$(col upstream 1)"; ng="$(col nginx 1)"; rec="$(col record 1)"; null="$(col null-proxy 1)"
blocking="$(col null-blocking 1)"; h2o="$(col h2o-proxy 1)"; threads="$(col null-threads 1)"
up99="$(p99_of upstream)"; ng99="$(p99_of nginx)"; rec99="$(p99_of record)"; null99="$(p99_of null-proxy)"
blocking99="$(p99_of null-blocking)"; h2o99="$(p99_of h2o-proxy)"; threads99="$(p99_of null-threads)"
lone_of() { for v in $(awk -v c="$2" '{print $c}' "$WORK/lone-$1"); do ms "$v"; echo; done | median; }
adds() {
    awk -v a="$(lone_of "$1" 2)" -v b="$(lone_of upstream 2)" -v c="$(lone_of "$1" 1)" -v d="$(lone_of upstream 1)" \
        'BEGIN { printf "p99 %.3f ms (adds %.3f ms), p50 %.3f ms (adds %.3f ms)", a, a - b, c, c - d }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo
echo "upstream alone: median $up req/s, p99 $up99 ms"
echo "nginx proxy_pass: median $ng req/s, p99 $ng99 ms"
echo "null-proxy -l $LOOPS (C, the recorder's libraries on its loops, nothing recorded): median $null req/s, p99 $null99 ms"
echo "null-proxy (the same libraries, four server threads handing over to one libcurl thread): median $threads req/s, p99 $threads99 ms"
echo "null-proxy -b -t 16 (the same libraries, blocking sends on 16 server threads): median $blocking req/s, p99 $blocking99 ms"
echo "libh2o's reverse proxy (C, nothing recorded): median $h2o req/s, p99 $h2o99 ms"
echo "conform record: median $rec req/s, p99 $rec99 ms"
echo "upstream alone at one connection: $(lone_of upstream 2 | awk '{printf "p99 %.3f ms", $1}'), $(lone_of upstream 1 | awk '{printf "p50 %.3f ms", $1}')"
echo "nginx proxy_pass at one connection: $(adds nginx)"
echo "libh2o's reverse proxy at one connection: $(adds h2o-proxy)"
echo "conform record at one connection: $(adds record)"
echo "recorded: $recorded exchanges for $answered requests wrk completed through the recorder"
echo "median: null-proxy $null against nginx proxy_pass $ng req/s: ratio $(ratio "$null" "$ng") (the libraries' ceiling)"
echo "median: null-proxy, threads handing over, $threads against nginx proxy_pass $ng req/s: ratio $(ratio "$threads" "$ng")"
echo "median: null-proxy -b -t 16 $blocking against nginx proxy_pass $ng req/s: ratio $(ratio "$blocking" "$ng")"
echo "median: libh2o's reverse proxy $h2o against nginx proxy_pass $ng req/s: ratio $(ratio "$h2o" "$ng")"
echo "median: conform record $rec against null-proxy $null req/s: ratio $(ratio "$rec" "$null")"
echo "median: conform record $rec against nginx proxy_pass $ng req/s: ratio $(ratio "$rec" "$ng")"
echo "median: conform record's own CPU $(median <"$WORK/cpu-record") us per request"
if [ -n "${CONFORM_BINARY_BEFORE:-}" ]; then
    before="$(col record-before 1)"
    echo "median: conform record (CONFORM_BINARY_BEFORE) $before against nginx proxy_pass $ng req/s: ratio $(ratio "$before" "$ng"), its CPU $(median <"$WORK/cpu-record-before") us per request"
    echo "recorded (CONFORM_BINARY_BEFORE): $before_recorded exchanges for $before_answered requests wrk completed through it"
    [ "$before_recorded" -ge "$before_answered" ] || { echo "LOST: the earlier build's recording misses $((before_answered - before_recorded)) exchanges" >&2; exit 1; }
fi
[ "$recorded" -ge "$answered" ] || { echo "LOST: the recording misses $((answered - recorded)) exchanges" >&2; exit 1; }
