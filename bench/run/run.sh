#!/bin/sh
# `conform run` against unchecked `curl -K` on one connection (issue 38: at most 1.1x), the peers' lifecycle suite
# against the nginx twins (bench/peers/twins.sh), binaries and curl alternating; see run_vs_curl.py.
# Usage: bench/run/run.sh [N1 N2 RUNS]     (default: 300 3000 5; CONFORM_BINARY=PATH skips the release build;
#        CONFORM_BASELINE=PATH runs that binary too, for a before/after in the same run)
set -eu
cd "$(dirname "$0")/../.."
. bench/lib/nginx.sh
. bench/peers/twins.sh
if ! [ -x /usr/sbin/nginx ]; then apt-get install -y --no-install-recommends nginx >/dev/null; fi
WORK="$(mktemp -d /tmp/conform-bench-run.XXXXXX)"
trap 'kill "${NGINX_PID:-0}" 2>/dev/null || true; rm -rf "$WORK"' EXIT INT TERM
if [ -z "${CONFORM_BINARY:-}" ]; then
    swift build -c release --product conform >/dev/null
    CONFORM_BINARY="$(swift build -c release --show-bin-path)/conform"
fi
start_twins
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 bench/run/run_vs_curl.py "$BASE" "$WORK" "${1:-300}" "${2:-3000}" "${3:-5}" "$CONFORM_BINARY" ${CONFORM_BASELINE:+"$CONFORM_BASELINE"}
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
