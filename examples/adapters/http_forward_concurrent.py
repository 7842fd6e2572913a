#!/usr/bin/env python3
"""Conform exec adapter: forwards up to ADAPTER_CONCURRENCY requests at once (default 8), answering each as it
completes. Replies may come back in any order: Conform matches them to requests by id."""
import json, os, sys, threading
from concurrent.futures import ThreadPoolExecutor

from http_forward import forward  # the serial example, in the same folder

CONCURRENCY = int(os.environ.get("ADAPTER_CONCURRENCY", "8"))
out = threading.Lock()


def write(reply):
    with out:  # one whole line at a time
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


write({"hello": {"concurrency": CONCURRENCY}})  # before the first reply: Conform then sends this many at once
with ThreadPoolExecutor(max_workers=CONCURRENCY) as pool:
    for line in sys.stdin:
        pool.submit(lambda req: write(forward(req)), json.loads(line))
