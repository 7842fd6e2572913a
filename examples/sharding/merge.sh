#!/bin/sh
# Merges the JSON reports of every shard into the reports of one run; exits with that run's code
# (0 conforms, 1 does not conform, 2 a shard is missing or could not run).
#
#   CONFORM_REPORTS       the directory the shards wrote to (default: reports)
#   further arguments     passed to 'conform merge' (default: JUnit, HTML and JSON reports in CONFORM_REPORTS)
set -u
reports="${CONFORM_REPORTS:-reports}"
if [ "$#" -eq 0 ]; then
    set -- --report "junit:$reports/conform.junit.xml" --report "html:$reports/conform.html" \
        --report "json:$reports/conform.json"
fi
# The shard reports only; the merged ones (conform.*) are left out, so a merge can be rerun.
conform merge --no-color "$reports"/shard-*-of-*.json "$@"
