#!/bin/sh
# The forward proxy (`conform record --forward`) against mitmdump in regular mode (mitmproxy from PyPI), in one
# run, both in front of the same HTTPS upstream (`conform serve --tls`) and both writing what they see (the
# recording; mitmdump's flow file, -w). The client is curl with --parallel (32 transfers at once, tunnels reused)
# through each proxy, trusting each proxy's CA; N requests a run, three runs each, alternating; req/s = N / time.
# Every exchange the recorder answered must be in its recording (lines of exchanges.jsonl against the 200s curl
# counted). Usage: bench/forward/run.sh [REQUESTS_PER_RUN]   (CONFORM_BINARY=PATH skips the release build)
set -eu
cd "$(dirname "$0")/../.."
N="${1:-5000}"
command -v mitmdump >/dev/null || python3 -m pip install --quiet --disable-pip-version-check mitmproxy==11.0.2
if [ -z "${CONFORM_BINARY:-}" ]; then
    swift build -c release --product conform >/dev/null
    CONFORM_BINARY="$(swift build -c release --show-bin-path)/conform"
fi
WORK="$(mktemp -d)"
PIDS=""
cleanup() {
    for pid in $PIDS; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
export XDG_CONFIG_HOME="$WORK/config"
"$CONFORM_BINARY" ca >/dev/null
CA="$WORK/config/conform/ca/conform-ca.pem"
UP_PORT="$(free_port)"
"$CONFORM_BINARY" serve --tls --port "$UP_PORT" >"$WORK/serve.out" 2>&1 &
PIDS="$PIDS $!"
URL="https://localhost:$UP_PORT/mobile/1/baseurl"
for _ in $(seq 100); do curl -fsS -o /dev/null --cacert "$CA" -H 'Authorization: App conform-app-code' "$URL" 2>/dev/null && break; sleep 0.1; done

i=0
while [ "$i" -lt "$N" ]; do echo "url = \"$URL\""; echo "output = /dev/null"; i=$((i + 1)); done >"$WORK/urls"

# run NAME PROXY CAFILE: one timed run of N requests through PROXY; prints req/s and the 200s counted.
run() {
    start="$(date +%s.%N)"
    ok="$(curl -sS --no-progress-meter -Z --parallel-max 32 --proxy "$2" --cacert "$3" -H 'Authorization: App conform-app-code' \
        -w '%{http_code}\n' -K "$WORK/urls" | grep -c '^200$' || true)"
    end="$(date +%s.%N)"
    rps="$(echo "$N $start $end" | awk '{printf "%.0f", $1 / ($3 - $2)}')"
    echo "$1: $rps req/s ($ok of $N answered 200)"
    echo "$rps" >>"$WORK/$1.rps"
    OK="$ok"
}

CONFORM_PORT="$(free_port)"
"$CONFORM_BINARY" record --forward --allow-host "localhost:$UP_PORT" --listen "127.0.0.1:$CONFORM_PORT" \
    --cacert "$CA" --out "$WORK/recorded" >"$WORK/record.out" 2>&1 &
PIDS="$PIDS $!"
MITM_PORT="$(free_port)"
mitmdump --listen-host 127.0.0.1 --listen-port "$MITM_PORT" --set confdir="$WORK/mitm" \
    --set ssl_verify_upstream_trusted_ca="$CA" -w "$WORK/mitm.flows" -q >"$WORK/mitm.out" 2>&1 &
PIDS="$PIDS $!"
for _ in $(seq 200); do [ -f "$WORK/mitm/mitmproxy-ca-cert.pem" ] && break; sleep 0.1; done
sleep 1
answered=0
for round in 1 2 3; do
    run conform "http://127.0.0.1:$CONFORM_PORT" "$CA"
    answered=$((answered + OK))
    run mitmdump "http://127.0.0.1:$MITM_PORT" "$WORK/mitm/mitmproxy-ca-cert.pem"
done
c="$(median <"$WORK/conform.rps")"
m="$(median <"$WORK/mitmdump.rps")"
echo "conform record --forward median: $c req/s"
echo "mitmdump (regular mode, -w) median: $m req/s"
echo "ratio: $(echo "$c $m" | awk '{printf "%.1f", $1 / $2}')x"
recorded="$(wc -l <"$WORK/recorded/exchanges.jsonl")"
echo "recorded $recorded exchanges of $answered answered 200 through conform"
[ "$recorded" -ge "$answered" ] || { echo "LOST: the recording misses exchanges" >&2; exit 1; }
