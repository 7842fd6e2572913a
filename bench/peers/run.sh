#!/bin/sh
# The side-by-side table of docs/performance.md: Tavern 3.7.1, a python-requests loop with checks, `conform run`
# and unchecked `curl -K`, each running the same checked push lifecycle against nginx serving static twins of the
# answers on loopback (bench/peers/peers.py says how).
#
# Installs the pinned Python peers from PyPI into a throwaway venv, uses Debian's nginx and wrk (apt-get installs
# them when missing, as root), builds `conform` in release.
# Usage: bench/peers/run.sh [N1 N2 RUNS]        (default: 100 1000 3; CONFORM_BINARY=PATH skips the build)
set -eu
cd "$(dirname "$0")/../.."
. bench/lib/nginx.sh
. bench/peers/twins.sh
if ! [ -x /usr/sbin/nginx ] || ! command -v wrk >/dev/null; then
    apt-get install -y --no-install-recommends nginx wrk >/dev/null
fi
WORK="$(mktemp -d /tmp/conform-bench-peers.XXXXXX)"
trap 'kill "${NGINX_PID:-0}" 2>/dev/null || true; rm -rf "$WORK"' EXIT INT TERM
python3 -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q --disable-pip-version-check "tavern==3.7.1" "pytest<9" requests
if [ -z "${CONFORM_BINARY:-}" ]; then
    swift build -c release --product conform >/dev/null
    CONFORM_BINARY="$(swift build -c release --show-bin-path)/conform"
fi

start_twins "$WORK/venv/bin/python"
echo "Versions: $("$WORK/venv/bin/python" -m pip list 2>/dev/null | grep -iE '^(tavern|pytest|requests) ' | tr -s ' ' | paste -sd, -)," \
    "$(/usr/sbin/nginx -v 2>&1), $(curl --version | head -1 | cut -d' ' -f1-2), Python $("$WORK/venv/bin/python" -V | cut -d' ' -f2)"
echo "Server ceiling, one connection: $(wrk -t1 -c1 -d3s "$BASE/mobile/1/appinstance" | awk '/Requests\/sec/ {print $2}') req/s (wrk -t1 -c1)"
"$WORK/venv/bin/python" bench/peers/peers.py "$CONFORM_BINARY" "$BASE" "$WORK" "${1:-100}" "${2:-1000}" "${3:-3}"
