#!/bin/sh
# Runs one shard of a Conform certification run and writes its JSON report.
#
#   CONFORM_SHARD_COUNT   how many shards (N, 1 to 1000)
#   CONFORM_SHARD_INDEX   this shard, 1 to N; or JOB_COMPLETION_INDEX (0 to N-1, set by a Kubernetes Indexed Job)
#   CONFORM_REPORTS       the directory shared by every shard and the merge step (default: reports)
#   CONFORM_TARGET        passed to --target (default: builtin, the embedded reference)
#   further arguments     passed to 'conform run' (suite files or directories, --var, --timeout, ...)
#
# Exits 0 once the report is written, whatever the verdict: the merge step gives the verdict of the whole run.
# Exits 2 when the shard could not run (no report to merge), 64 on a usage error.
set -u
count="${CONFORM_SHARD_COUNT:?set CONFORM_SHARD_COUNT to the number of shards}"
if [ -n "${CONFORM_SHARD_INDEX:-}" ]; then
    index="$CONFORM_SHARD_INDEX"
elif [ -n "${JOB_COMPLETION_INDEX:-}" ]; then
    case "$JOB_COMPLETION_INDEX" in
    '' | *[!0-9]*) echo "error: JOB_COMPLETION_INDEX is not a whole number: '$JOB_COMPLETION_INDEX'" >&2; exit 64 ;;
    esac
    index=$((JOB_COMPLETION_INDEX + 1))
else
    echo "error: set CONFORM_SHARD_INDEX (1 to N) or JOB_COMPLETION_INDEX (0 to N-1)" >&2
    exit 64
fi
reports="${CONFORM_REPORTS:-reports}"
mkdir -p "$reports" || exit 2
conform run --no-color --target "${CONFORM_TARGET:-builtin}" --shard "$index/$count" \
    --report "json:$reports/shard-$index-of-$count.json" "$@"
code=$?
case "$code" in
0 | 1) exit 0 ;;
*) exit "$code" ;;
esac
