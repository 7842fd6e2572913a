"""Adapter used by ExecTransportTests: behaves according to the request path."""
import base64
import json
import os
import sys
import time

for line in sys.stdin:
    request = json.loads(line)
    path = request["url"].split("?")[0]
    reply = {"id": request["id"]}
    if path.endswith("/crash"):
        sys.stderr.write("boom: adapter crashed on purpose\n")
        sys.stderr.flush()
        sys.exit(3)
    elif path.endswith("/garbage"):
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
        continue
    elif path.endswith("/log-line"):
        # A log line on stdout, where only replies belong, before the reply itself.
        sys.stdout.write("INFO starting the exchange\n")
        reply.update(status=200)
    elif path.endswith("/wrong-id"):
        reply["id"] = request["id"] + 1000
        reply.update(status=200)
    elif path.endswith("/close-stdin"):
        # Stops reading requests but keeps running with stdout open: the next request line cannot be written.
        sys.stdin.close()
        os.close(0)
        reply.update(status=200)
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        time.sleep(300)
    elif path.endswith("/close-stdout"):
        # Answers, then closes stdout and keeps running (fd 1 is taken again by /dev/null): no reply can come again.
        reply.update(status=200)
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        os.close(1)
        sys.stdout = open(os.devnull, "w")
        time.sleep(300)
    elif path.endswith("/close-stdout-first"):
        os.close(1)
        sys.stdout = open(os.devnull, "w")
        time.sleep(300)
    elif path.endswith("/large"):
        body = bytes(range(256)) * (24 * 1024 * 1024 // 256)
        reply.update(status=200, bodyBase64=base64.b64encode(body).decode())
    elif path.endswith("/many-headers"):
        reply.update(status=200, headers=[["a", "b"]] * 1500000)
    elif path.endswith("/long-garbage"):
        sys.stdout.write("x" * (8 * 1024 * 1024) + "\n")
        sys.stdout.flush()
        continue
    elif path.endswith("/hang"):
        time.sleep(3600)
    elif path.endswith("/error"):
        reply["error"] = "upstream refused the connection"
    elif path.endswith("/binary"):
        body = base64.b64decode(request["bodyBase64"]) if "bodyBase64" in request else b""
        reply.update(status=200, headers=[["Content-Type", "application/octet-stream"]],
                     bodyBase64=base64.b64encode(bytes(reversed(body))).decode())
    else:
        described = {"method": request["method"], "url": request["url"], "headers": request["headers"],
                     "body": request.get("body"), "env": os.environ.get("CONFORM_TEST_VALUE")}
        reply.update(status=201, headers=[["Content-Type", "application/json"], ["X-Adapter-PID", str(os.getpid())],
                                          ["Set-Cookie", "a=1"], ["Set-Cookie", "b=2"]],
                     body=json.dumps(described))
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
