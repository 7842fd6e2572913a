#!/bin/sh
# Runner cost per checked exchange (N = 100 and 1000, one connection) and the suite load rate.
# Usage: bench/runner/run.sh [N...]
set -eu
cd "$(dirname "$0")/../.."
swift build -c release --product conform-bench-runner >/dev/null
"$(swift build -c release --show-bin-path)/conform-bench-runner" "${@:-100}" ${1:+} $( [ "$#" -eq 0 ] && echo 1000 )
