#!/bin/sh
# `conform explore`'s rate: sequences and operations per second against the builtin reference (in process) and
# against `conform serve` over HTTP (loopback, curl), and how long shrinking a divergence takes (the fault
# depersonalizeNoop, seed 11). Every sequence is played twice (on a fresh embedded reference, then on the target),
# so the rates include the reference's play and the judging suite's loading. Three runs each, the median printed.
# Usage: bench/explore/run.sh [SEQUENCES_PER_RUN]   (CONFORM_BINARY=PATH skips the release build)
set -eu
cd "$(dirname "$0")/../.."
N="${1:-500}"
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
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# rates NAME ARGS...: three explorations of N sequences; prints the median sequences/s and operations/s.
rates() {
    name="$1"
    shift
    for run in 1 2 3; do
        "$CONFORM_BINARY" explore --seed 1 --budget "$N" --no-color "$@" >"$WORK/$name.$run" || {
            cat "$WORK/$name.$run"
            exit 1
        }
        # "Explored 500 behaviours (4512 operations) in 3.1 s."
        awk '/^Explored [0-9]+ behaviours/ { gsub(/[(]/, "", $4); print $2 / $7, $4 / $7 }' "$WORK/$name.$run"
    done >"$WORK/$name.rates"
    seqs="$(cut -d' ' -f1 "$WORK/$name.rates" | median)"
    ops="$(cut -d' ' -f2 "$WORK/$name.rates" | median)"
    printf '| %s | %.0f | %.0f |\n' "$name" "$seqs" "$ops"
}

echo "| target | sequences/s | operations/s |"
echo "|---|---|---|"
rates builtin
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
"$CONFORM_BINARY" serve --port "$PORT" >"$WORK/serve.out" 2>&1 &
PIDS="$PIDS $!"
for _ in $(seq 100); do
    curl -fsS -o /dev/null -H 'Authorization: App conform-app-code' "http://127.0.0.1:$PORT/mobile/1/baseurl" 2>/dev/null && break
    sleep 0.1
done
rates "serve over HTTP" --target "http://127.0.0.1:$PORT"

# Shrinking: the divergence seed 11 finds against each fault (within 600 sequences, as the tests), shrunk three
# times (a fresh --out each run); a push reaching only a person's first device in the tests' smaller universe.
echo
echo "| shrinking (seed 11) | found after | shrunk to | attempts | seconds |"
echo "|---|---|---|---|---|"
shrink() {
    fault="$1"
    shift
    for run in 1 2 3; do
        "$CONFORM_BINARY" explore --fault "$fault" --seed 11 --budget 600 --window 50ms \
            --out "$WORK/out.$fault.$run" --no-color "$@" >"$WORK/shrink.$run" || true
        # "Explored 232 behaviours …" and "Shrunk suite: PATH (18 shrinking attempts, 0.41 s); replay it with: …"
        found="$(awk '/^Explored [0-9]+ behaviours/ { print $2 }' "$WORK/shrink.$run")"
        steps="$(cat "$WORK"/out."$fault".$run/*.yaml 2>/dev/null | grep -c '^  - name:' || true)"
        sed -n "s/^Shrunk suite: .* (\([0-9]*\) shrinking attempts, \([0-9.]*\) s).*/$found $steps \1 \2/p" "$WORK/shrink.$run"
    done >"$WORK/shrink"
    test -s "$WORK/shrink" || { cat "$WORK/shrink.1"; exit 1; }
    printf '| %s | %s sequences | %s operations | %s | %s |\n' "$fault${*:+ ($*)}" "$(cut -d' ' -f1 "$WORK/shrink" | median)" \
        "$(cut -d' ' -f2 "$WORK/shrink" | median)" "$(cut -d' ' -f3 "$WORK/shrink" | median)" \
        "$(cut -d' ' -f4 "$WORK/shrink" | median)"
}
shrink depersonalizeNoop
shrink ignoreForceDepersonalize
shrink pushReachesOnlyFirstDevice --devices 2 --persons 1 --max-length 8
