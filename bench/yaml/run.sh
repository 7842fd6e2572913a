#!/usr/bin/env bash
# Compares libyaml's raw event stream (C) with ConformYAML's tree parse (Swift, release) on a generated file.
# Usage: bench/yaml/run.sh [MEGABYTES] [RUNS]   (defaults: 20 MB, 3 runs; prints per-run and median MB/s)
set -euo pipefail
cd "$(dirname "$0")/../.."
megabytes="${1:-20}"
runs="${2:-3}"
work="${TMPDIR:-/tmp}/conform-bench-yaml"
mkdir -p "$work"
python3 bench/yaml/generate.py "$work/bench.yaml" "$megabytes"
gcc -O2 bench/yaml/events.c -lyaml -o "$work/events"
swift build -c release --product conform-bench-yaml >/dev/null
"$work/events" "$work/bench.yaml" "$runs"
"$(swift build -c release --show-bin-path)/conform-bench-yaml" "$work/bench.yaml" "$runs"
