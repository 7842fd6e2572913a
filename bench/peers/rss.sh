#!/bin/sh
# Peak memory and wall time of `conform run` on suites of N checked lifecycle exchanges (bench/peers/peers.py) against
# the nginx twins: what holding every step's result for the reports costs.
# Usage: bench/peers/rss.sh [N...]      (default: 1000 10000; one suite file holds at most 8 MiB, about 20,000 steps)
set -eu
cd "$(dirname "$0")/../.."
. bench/lib/nginx.sh
. bench/peers/twins.sh
WORK="$(mktemp -d /tmp/conform-bench-rss.XXXXXX)"
trap 'kill "${NGINX_PID:-0}" 2>/dev/null || true; rm -rf "$WORK"' EXIT INT TERM
if [ -z "${CONFORM_BINARY:-}" ]; then
    swift build -c release --product conform >/dev/null
    CONFORM_BINARY="$(swift build -c release --show-bin-path)/conform"
fi
start_twins
for n in ${@:-1000 10000}; do
    python3 -c "import sys; sys.path.insert(0, 'bench/peers'); import peers; open('$WORK/s.yaml', 'w').write(peers.conform_suite($n))"
    /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" "$CONFORM_BINARY" run --no-color "$WORK/s.yaml" --target "$BASE" \
        >"$WORK/out" || { tail -3 "$WORK/out"; exit 1; }
    read -r secs user sys kb <"$WORK/time"
    echo "N=$n: $secs s wall, $user s user, $sys s sys, max RSS $((kb / 1024)) MB; $(tail -1 "$WORK/out")"
done
