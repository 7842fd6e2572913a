"""A slow device for the slow-implementation matrix: the example adapter's forwarding, delayed.

SLOW_DELAY seconds are added to every request, plus a random 0..SLOW_JITTER seconds. With SLOW_CONCURRENCY > 1
the adapter declares that concurrency and answers in completion order; otherwise it answers one at a time.
"""
import json
import os
import random
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples", "adapters"))
from http_forward import forward  # noqa: E402

DELAY = float(os.environ.get("SLOW_DELAY", "0"))
JITTER = float(os.environ.get("SLOW_JITTER", "0"))
CONCURRENCY = int(os.environ.get("SLOW_CONCURRENCY", "1"))
out = threading.Lock()


def answer(request):
    time.sleep(DELAY + random.uniform(0, JITTER))
    reply = forward(request)
    with out:
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if CONCURRENCY > 1:
    sys.stdout.write(json.dumps({"hello": {"concurrency": CONCURRENCY}}) + "\n")
    sys.stdout.flush()
    with ThreadPoolExecutor(max_workers=CONCURRENCY) as pool:
        for line in sys.stdin:
            pool.submit(answer, json.loads(line))
else:
    for line in sys.stdin:
        answer(json.loads(line))
