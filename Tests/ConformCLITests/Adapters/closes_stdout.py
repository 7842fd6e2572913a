"""An adapter that answers its first request (or none, with --first) and then closes its stdout, still running."""
import json
import os
import sys
import time

if "--first" not in sys.argv:
    request = json.loads(sys.stdin.readline())
    sys.stdout.write(json.dumps({"id": request["id"], "status": 200, "headers": [["Content-Type", "application/json"]],
                                 "body": "{}"}) + "\n")
    sys.stdout.flush()
os.close(1)
sys.stdout = open(os.devnull, "w")
time.sleep(300)
