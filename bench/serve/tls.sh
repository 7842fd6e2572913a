#!/bin/sh
# `conform serve` over HTTPS under wrk on loopback, next to nginx serving a static JSON file over HTTPS with the same
# certificate (a leaf of the local CA, made here), in the same run. Installs nginx-light and wrk when missing.
# Usage: bench/serve/tls.sh [SECONDS_PER_RUN]   (3 runs each; prints medians and the ratio;
#        CONFORM_BINARY=PATH skips the release build)
set -eu
cd "$(dirname "$0")/../.."
DURATION="${1:-5}"
command -v wrk >/dev/null && [ -x /usr/sbin/nginx ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx-light >/dev/null
. bench/lib/nginx.sh
. bench/lib/wrk.sh
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

"$CONFORM_BINARY" serve --port 0 --threads "${CONFORM_BENCH_THREADS:-2}" --tls-cert "$WORK/leaf.pem" \
    --tls-key "$WORK/leaf-key.pem" >"$WORK/serve.out" &
SERVER_PID=$!
while ! grep -q "^Serving" "$WORK/serve.out" 2>/dev/null; do sleep 0.1; done
BASE="$(grep -o 'https://[0-9.:]*' "$WORK/serve.out" | head -1)"
NGINX_TLS_CERT="$WORK/leaf.pem" NGINX_TLS_KEY="$WORK/leaf-key.pem" start_static_nginx
curl -fsS --cacert "$CA/ca-cert.pem" "$BASE/mobile/1/baseurl" -H 'Authorization: App conform-app-code' >/dev/null

# The same small GET on both: M12 answers a short JSON document, nginx a static one of about the same size.
cat >"$WORK/baseurl.lua" <<LUA
wrk.headers["Authorization"] = "App conform-app-code"
LUA
echo "# wrk -t2 -c32 -d${DURATION}s over TLS (keep-alive), 3 runs each; load average $(cut -d' ' -f1-3 /proc/loadavg)"
wrk_runs "nginx HTTPS static JSON" "$NGINX_URL"
NGINX_RPS="$WRK_MEDIAN"
wrk_runs "conform serve --tls-cert: baseurl (M12)" "$BASE/mobile/1/baseurl" "$WORK/baseurl.lua"
CONFORM_RPS="$WRK_MEDIAN"
echo "ratio conform/nginx over HTTPS: $(awk -v a="$CONFORM_RPS" -v b="$NGINX_RPS" 'BEGIN { printf "%.2f", a / b }')"
