#!/bin/sh
# TLS handshakes a second, and the CPU of stalled handshakes, of `conform serve --tls-cert` beside nginx serving
# HTTPS with the same certificate (a P-256 leaf of the local CA, made here), on loopback, in one run.
# Installs nginx-light when missing. Usage: bench/tls/run.sh [SECONDS_PER_RUN]   (3 runs each; prints medians and
# ratios; CONFORM_BINARY=PATH skips the release build)
#
# - fast: 2 client processes, each a new connection and a full handshake (TLS 1.3, no resumption) again and again.
# - store: the same, each connection loading a trust store of about 140 certificates (the system's and the CA)
#   between opening the connection and sending its ClientHello, as curl does for each connection.
# - stalled: 4 clients send 20 bytes of a ClientHello and stall; the server's CPU is read while a normal client
#   handshakes once a second beside them.
# The server's CPU is its process's (nginx: master and workers) user and system time from /proc.
set -eu
cd "$(dirname "$0")/../.."
DURATION="${1:-5}"
[ -x /usr/sbin/nginx ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
. bench/lib/nginx.sh
if [ -z "${CONFORM_BINARY:-}" ]; then
    swift build -c release --product conform >/dev/null
    CONFORM_BINARY="$(swift build -c release --show-bin-path)/conform"
fi
WORK="$(mktemp -d)"
SERVER_PID=""; NGINX_PID=""
cleanup() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT INT TERM

# The local CA in a throwaway configuration directory, and one leaf for 127.0.0.1 that both servers present.
XDG_CONFIG_HOME="$WORK/config" "$CONFORM_BINARY" ca >/dev/null
CA="$WORK/config/conform/ca"
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$WORK/leaf-key.pem" -out "$WORK/leaf.csr" \
    -subj /CN=127.0.0.1 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$WORK/leaf.ext"
openssl x509 -req -in "$WORK/leaf.csr" -CA "$CA/ca-cert.pem" -CAkey "$CA/ca-key.pem" -CAcreateserial -days 1 \
    -extfile "$WORK/leaf.ext" -out "$WORK/leaf.pem" 2>/dev/null
cp "$CA/ca-cert.pem" "$WORK/ca.pem"

"$CONFORM_BINARY" serve --port 0 --threads "${CONFORM_BENCH_THREADS:-2}" --tls-cert "$WORK/leaf.pem" \
    --tls-key "$WORK/leaf-key.pem" >"$WORK/serve.out" &
SERVER_PID=$!
while ! grep -q "^Serving" "$WORK/serve.out" 2>/dev/null; do sleep 0.1; done
CONFORM_PORT="$(grep -o 'https://[0-9.:]*' "$WORK/serve.out" | head -1 | sed 's/.*://')"
NGINX_TLS_CERT="$WORK/leaf.pem" NGINX_TLS_KEY="$WORK/leaf-key.pem" start_static_nginx
NGINX_PORT="$(echo "$NGINX_URL" | sed 's|https://127.0.0.1:\([0-9]*\)/.*|\1|')"
NGINX_PIDS="$NGINX_PID,$(pgrep -P "$NGINX_PID" | paste -sd, -)"

# One value of a key=value line.
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# runs NAME MODE PORT PIDS: three runs of handshakes.py, one line each, then the medians.
runs() {
    RATES=""; CPUS=""
    for _ in 1 2 3; do
        LINE="$(python3 bench/tls/handshakes.py "$2" "$3" "$DURATION" "$4" "$WORK/ca.pem")"
        echo "  $1 $2: $LINE"
        RATES="$RATES $(field "$LINE" per_second)"
        CPUS="$CPUS $(field "$LINE" server_cpu_us)"
    done
    RATE="$(echo "$RATES" | tr ' ' '\n' | grep . | median)"
    CPU="$(echo "$CPUS" | tr ' ' '\n' | grep . | median)"
    echo "$1 $2 median: $RATE handshakes/s, $CPU µs of server CPU a handshake"
}
stalled() {
    LINE="$(python3 bench/tls/handshakes.py stalled "$2" "$DURATION" "$3" "$WORK/ca.pem")"
    echo "$1 stalled: $LINE"
    STALLED="$(field "$LINE" server_cpu_per_second)"
}

echo "# $DURATION s a run, 3 runs each, TLS 1.3 with a P-256 leaf; load average $(cut -d' ' -f1-3 /proc/loadavg)"
runs nginx fast "$NGINX_PORT" "$NGINX_PIDS"; NGINX_FAST="$RATE"; NGINX_FAST_CPU="$CPU"
runs conform fast "$CONFORM_PORT" "$SERVER_PID"; CONFORM_FAST="$RATE"; CONFORM_FAST_CPU="$CPU"
runs nginx store "$NGINX_PORT" "$NGINX_PIDS"; NGINX_STORE="$RATE"
runs conform store "$CONFORM_PORT" "$SERVER_PID"; CONFORM_STORE="$RATE"
stalled nginx "$NGINX_PORT" "$NGINX_PIDS"; NGINX_STALLED="$STALLED"
stalled conform "$CONFORM_PORT" "$SERVER_PID"; CONFORM_STALLED="$STALLED"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
echo "ratio conform/nginx, handshakes/s: $(ratio "$CONFORM_FAST" "$NGINX_FAST") (fast client)," \
    "$(ratio "$CONFORM_STORE" "$NGINX_STORE") (trust-store client)"
echo "ratio conform/nginx, server CPU a handshake: $(ratio "$CONFORM_FAST_CPU" "$NGINX_FAST_CPU")"
echo "CPU of 4 stalled handshakes, cores: conform $CONFORM_STALLED, nginx $NGINX_STALLED"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
