#!/bin/sh
# Peak memory of `conform run` on a 100,000-step run (issue target: at most 100 MB): the peers' lifecycle suite
# (bench/peers/peers.py) split over files of 20,000 steps (a suite file holds at most 8 MiB), against the nginx
# twins, once with the console alone and once writing JUnit, JSON and HTML reports as well.
# Usage: bench/memory/rss.sh [STEPS]      (default: 100000)
set -eu
cd "$(dirname "$0")/../.."
. bench/lib/nginx.sh
. bench/peers/twins.sh
WORK="$(mktemp -d /tmp/conform-bench-memory.XXXXXX)"
trap 'kill "${NGINX_PID:-0}" 2>/dev/null || true; rm -rf "$WORK"' EXIT INT TERM
if [ -z "${CONFORM_BINARY:-}" ]; then
    swift build -c release --product conform >/dev/null
    CONFORM_BINARY="$(swift build -c release --show-bin-path)/conform"
fi
start_twins
steps="${1:-100000}"
python3 - "$WORK" "$steps" <<'PY'
import sys
sys.path.insert(0, 'bench/peers')
import peers
work, total = sys.argv[1], int(sys.argv[2])
per, i = 20000, 0
while i * per < total:
    n = min(per, total - i * per)
    open('%s/s%02d.yaml' % (work, i), 'w').write(peers.conform_suite(n).replace('suite: peers', 'suite: peers-%d' % i))
    i += 1
PY
measure() {
    label="$1"
    shift
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$CONFORM_BINARY" run --no-color "$WORK"/s*.yaml --target "$BASE" "$@" \
        >"$WORK/out" || { tail -3 "$WORK/out"; exit 1; }
    read -r secs kb <"$WORK/time"
    echo "$label: $steps steps, $secs s wall, max RSS $((kb / 1024)) MB; $(tail -1 "$WORK/out")"
}
measure "console only"
measure "console + JUnit, JSON, HTML" --report "junit:$WORK/r.xml" --report "json:$WORK/r.json" --report "html:$WORK/r.html"
echo "report sizes: $(du -h "$WORK/r.xml" "$WORK/r.json" "$WORK/r.html" | awk '{printf "%s %s; ", $2, $1}' | sed "s|$WORK/||g")"
