#!/bin/sh
# Every performance target of docs/performance.md in one run: the side-by-side peers (bench/peers), `conform run`
# against unchecked `curl -K` at 300 and 3,000 steps with wall and CPU time (bench/run), memory of a
# 100,000-step run (bench/memory), replay against wrk (bench/replay, part a), `conform serve` against nginx
# (bench/serve), the HTTP server libraries' ceiling (bench/server-library), the YAML tree against libyaml
# (bench/yaml), the recorder against nginx proxy_pass (bench/record), `conform serve` over HTTPS against nginx over
# HTTPS (bench/serve/tls.sh) and the forward proxy against mitmdump (bench/forward), one after the other on the same
# box, then a table of the figures, each ratio next to its goal (issue 38: run <= 1.1x curl -K, replay >= 0.5 of wrk,
# serve >= 40 % of nginx static, record >= 0.38 of nginx proxy_pass) and whether it is met. Each ratio compares
# figures measured in the same script.
# Installs what the parts install (nginx, wrk, a throwaway venv with Tavern, mitmproxy from PyPI). About 13 minutes.
# Usage: bench/targets.sh                 (CONFORM_BINARY=PATH skips the release build of conform)
set -eu
cd "$(dirname "$0")/.."
LOG="$(mktemp -d /tmp/conform-bench-targets.XXXXXX)"
trap 'rm -rf "$LOG"' EXIT INT TERM
if [ -z "${CONFORM_BINARY:-}" ]; then
    swift build -c release --product conform >/dev/null
    CONFORM_BINARY="$(swift build -c release --show-bin-path)/conform"
fi
export CONFORM_BINARY
part() {
    name="$1"
    shift
    echo "=== $name: $*"
    "$@" 2>&1 | tee "$LOG/$name"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
part peers bench/peers/run.sh 100 1000 5
part run bench/run/run.sh 300 3000 5
part memory bench/memory/rss.sh
CONFORM_BENCH_PARTS=a part replay bench/replay/run.sh
part serve bench/serve/run.sh 5
part server-library bench/server-library/run.sh 5
part yaml bench/yaml/run.sh 20 5
part record bench/record/run.sh 5
part https bench/serve/tls.sh 5
part forward bench/forward/run.sh 5000
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# The figures, read back from the parts' own output.
cell() { awk -F'|' -v row="$2" -v col="$3" 'index($2, row) { gsub(/[ *×]/, "", $col); print $col; exit }' "$LOG/$1"; }
conform_ms="$(cell peers 'conform run' 3)"
curl_ms="$(cell peers 'curl -K' 3)"
tavern_ratio="$(cell peers 'Tavern' 4)"
rss_console="$(sed -n 's/^console only:.*max RSS \([0-9]*\) MB.*/\1/p' "$LOG/memory")"
rss_reports="$(sed -n 's/^console + JUnit.*max RSS \([0-9]*\) MB.*/\1/p' "$LOG/memory")"
replay="$(sed -n 's/^median: \(conform replay .* wrk .*\)/\1/p' "$LOG/replay")"
replay_ceiling="$(sed -n 's/^median: null-replay .* ratio \([0-9.]*\).*/\1/p' "$LOG/replay")"
replay_of_ceiling="$(sed -n 's/^median: conform replay .* null-replay .* ratio \([0-9.]*\).*/\1/p' "$LOG/replay")"
replay_ratio="$(printf '%s\n' "$replay" | sed -n 's/.*ratio \([0-9.]*\).*/\1/p')"
median() { sed -n "s/^$1 median: \([0-9.]*\).*/\1/p" "$LOG/serve"; }
nginx_before="$(median 'nginx static JSON')"
nginx_after="$(median 'nginx static JSON (again)')"
register="$(median 'conform serve: registration (M1)')"
personalize="$(median 'conform serve: personalize (M4)')"
libyaml="$(sed -n 's/^libyaml events: median \([0-9.]*\) MB.*/\1/p' "$LOG/yaml")"
tree="$(sed -n 's/^conform tree: median \([0-9.]*\) MB.*/\1/p' "$LOG/yaml")"
verdict() { awk -v ok="$1" 'BEGIN { print (ok ? "met" : "not met") }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "?" }'; }
# row TARGET FIGURE RATIO GOAL MET: one line of the table; every ratio is printed next to its goal.
row() { echo "| $1 | $2 | $3 | $4 | $5 |"; }
run_ratio="$(ratio "$conform_ms" "$curl_ms")"
echo
echo "| target | figure (this run) | ratio | goal | met? |"
echo "|---|---|---|---|---|"
row "\`conform run\` per checked exchange, one connection, against unchecked \`curl -K\`" \
    "$conform_ms against $curl_ms ms" "${run_ratio}x curl" "<= 1.1x" \
    "$(verdict "$(awk -v a="$run_ratio" 'BEGIN { print (a <= 1.1) }')")"
# bench/run: the same lifecycle at 300 and 3,000 steps, wall and CPU per exchange (µs), each against curl's.
run_cell() { awk -F'|' -v col="$1" '$2 ~ /^ conform run / { gsub(/[ ×]/, "", $col); print $col; exit }' "$LOG/run"; }
curl_cell() { awk -F'|' -v col="$1" '$2 ~ /^ curl -K / { gsub(/[ ×]/, "", $col); print $col; exit }' "$LOG/run"; }
row "\`conform run\` against unchecked \`curl -K\`, 300 and 3,000 steps (bench/run)" \
    "wall $(run_cell 3) against $(curl_cell 3) µs, CPU $(run_cell 5) against $(curl_cell 5) µs" \
    "$(run_cell 4)x wall, $(run_cell 6)x CPU" "<= 1.1x" \
    "$(verdict "$(awk -v a="$(run_cell 4)" 'BEGIN { print (a <= 1.1) }')")"
row "\`conform run\` per checked exchange" "$conform_ms ms" "-" "<= 0.1 ms" \
    "$(verdict "$(awk -v a="$conform_ms" 'BEGIN { print (a <= 0.1) }')")"
row "cheaper than Tavern" "Tavern ${tavern_ratio}x the cost of \`conform run\`" "${tavern_ratio}x" ">= 100x" \
    "$(verdict "$(awk -v a="$tavern_ratio" 'BEGIN { print (a >= 100) }')")"
row "100,000 steps" "$rss_console MB console, $rss_reports MB with JUnit, JSON, HTML" "-" "<= 100 MB RSS" \
    "$(verdict "$(awk -v a="$rss_console" -v b="$rss_reports" 'BEGIN { print (a <= 100 && b <= 100) }')")"
row "replay against wrk, same requests, same server" "$replay; libcurl alone, judging nothing \
(bench/replay/null-replay.c): $replay_ceiling of wrk, the replay $replay_of_ceiling of that" "$replay_ratio of wrk" \
    ">= 0.5" "$(verdict "$(awk -v a="$replay_ratio" 'BEGIN { print (a >= 0.5) }')")"
nginx_mean="$(awk -v a="$nginx_before" -v b="$nginx_after" 'BEGIN { printf "%.0f", (a + b) / 2 }')"
share() { awk -v a="$1" -v b="$nginx_mean" 'BEGIN { printf "%.0f", 100 * a / b }'; }
row "\`conform serve\` against nginx static" "registration $register, personalize $personalize req/s; nginx \
$nginx_before before, $nginx_after after (mean $nginx_mean)" "$(share "$register") % and $(share "$personalize") %" \
    ">= 40 %" "$(verdict "$(awk -v a="$(share "$register")" -v b="$(share "$personalize")" 'BEGIN { print (a >= 40 && b >= 40) }')")"
# The server libraries, do-nothing handlers answering a registration-like POST, against nginx's static GET.
library() { sed -n "s/^median: $1 POST .* of-nginx-get \([0-9.]*\)$/\1/p" "$LOG/server-library"; }
library_cpu() { sed -n "s/^median: $1 POST .* cpu \([0-9.]*\) us .*/\1/p" "$LOG/server-library"; }
mhd="$(library mhd)"
httpserver="$(library conform-httpserver)"
row "the server library is not the ceiling: a do-nothing POST handler against nginx static" "libh2o (C) \
$(library h2o) of nginx; server CPU per POST: nginx $(library_cpu nginx), libmicrohttpd $(library_cpu mhd), \
HTTPServer $(library_cpu conform-httpserver), libh2o $(library_cpu h2o) µs" \
    "libmicrohttpd $mhd, HTTPServer $httpserver" ">= 0.5" \
    "$(verdict "$(awk -v a="$mhd" -v b="$httpserver" 'BEGIN { print (a >= 0.5 && b >= 0.5) }')")"
record_ratio="$(sed -n 's/^median: conform record .* against nginx proxy_pass .*ratio \([0-9.]*\).*/\1/p' "$LOG/record")"
ceiling() { sed -n "s/^median: $1 [0-9.]* against nginx proxy_pass .*ratio \([0-9.]*\).*/\1/p" "$LOG/record"; }
recorded="$(sed -n 's/^recorded: //p' "$LOG/record")"
yaml_ratio="$(ratio "$tree" "$libyaml")"
row "suite loading against libyaml's raw event rate" "$tree against $libyaml MB/s" "$yaml_ratio" ">= 0.5" \
    "$(verdict "$(awk -v a="$yaml_ratio" 'BEGIN { print (a >= 0.5) }')")"
row "\`conform record\` against nginx proxy_pass, every exchange recorded" "$recorded; recording nothing, in C: \
libmicrohttpd and libcurl as the recorder uses them $(ceiling null-proxy), with server threads handing over to \
one libcurl thread $(ceiling 'null-proxy, threads handing over,'), with blocking sends \
$(ceiling 'null-proxy -b -t 16'), libh2o's proxy $(ceiling "libh2o's reverse proxy")" "$record_ratio" ">= 0.38" \
    "$(verdict "$(awk -v a="$record_ratio" 'BEGIN { print (a >= 0.38) }')")"
https_ratio="$(sed -n 's/^ratio conform\/nginx over HTTPS: \([0-9.]*\)/\1/p' "$LOG/https")"
row "\`conform serve\` over HTTPS against nginx over HTTPS" "-" "$https_ratio" "none (published)" "published"
forward_ratio="$(sed -n 's/^ratio: \([0-9.]*\)x/\1/p' "$LOG/forward")"
forward_rates="$(sed -n 's/^conform record --forward median: \(.*\)/\1/p' "$LOG/forward") against mitmdump $(sed -n 's/^mitmdump (regular mode, -w) median: \(.*\)/\1/p' "$LOG/forward")"
forward_kept="$(sed -n 's/^recorded \(.*\) through conform/\1/p' "$LOG/forward")"
row "\`record --forward\` over HTTPS against mitmdump, nothing lost" "$forward_rates; recorded $forward_kept" \
    "${forward_ratio}x" ">= 10x" "$(verdict "$(awk -v a="$forward_ratio" 'BEGIN { print (a >= 10) }')")"
