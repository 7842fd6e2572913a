"""Adapter used by ExecTransportConcurrencyTests: declares a concurrency and answers out of order.

CONFORM_TEST_HELLO is printed as the first line (nothing when empty). A request for /sleep/MS/N is answered
after MS milliseconds on a thread of its own; the reply says how many requests were under way at most.
/stray answers with an id no request has. With CONFORM_TEST_RECEIVED set, each request's last path segment is
appended to that file as it arrives.
"""
import json
import os
import sys
import threading
import time

lock = threading.Lock()
under_way = 0
most = 0
out = threading.Lock()


def reply(message):
    with out:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def answer(request):
    global under_way
    parts = request["url"].split("/")
    if parts[1] != "stray":
        time.sleep(int(parts[2]) / 1000)
    with lock:  # counted off before the reply, which lets Conform send the next request
        under_way -= 1
    if parts[1] == "stray":
        reply({"id": 1_000_000, "status": 200})
    else:
        reply({"id": request["id"], "status": 200, "body": json.dumps({"url": request["url"], "most": most})})


hello = os.environ.get("CONFORM_TEST_HELLO", "")
if hello:
    reply(json.loads(hello))
received = os.environ.get("CONFORM_TEST_RECEIVED", "")
for line in sys.stdin:
    request = json.loads(line)
    if received:
        with open(received, "a") as log:
            log.write(request["url"].split("/")[-1] + "\n")
    with lock:
        under_way += 1
        most = max(most, under_way)
    threading.Thread(target=answer, args=(request,)).start()
