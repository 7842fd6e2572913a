#!/usr/bin/env python3
"""Conform exec adapter: forwards each request to an HTTP implementation with urllib, one at a time."""
import base64, json, os, sys, urllib.error, urllib.request

BASE = os.environ.get("IMPL_BASE_URL", "http://127.0.0.1:8080")


def forward(req):
    """Sends one request line's request to the implementation and returns the reply object."""
    url = req["url"]
    if url.startswith("/"):
        url = BASE + url
    body = base64.b64decode(req["bodyBase64"]) if "bodyBase64" in req else req.get("body", "").encode()
    request = urllib.request.Request(url, data=body or None, method=req["method"])
    for name, value in req["headers"]:
        request.add_header(name, value)
    try:
        try:
            resp = urllib.request.urlopen(request, timeout=30)
        except urllib.error.HTTPError as err:  # 4xx and 5xx are answers, not failures
            resp = err
        data = resp.read()
        reply = {"id": req["id"], "status": resp.status, "headers": [list(h) for h in resp.headers.items()]}
        try:
            reply["body"] = data.decode("utf-8")
        except UnicodeDecodeError:
            reply["bodyBase64"] = base64.b64encode(data).decode()
    except Exception as exc:  # no response at all: report it, keep running
        reply = {"id": req["id"], "error": f"{type(exc).__name__}: {exc}"}
    return reply


if __name__ == "__main__":
    for line in sys.stdin:
        sys.stdout.write(json.dumps(forward(json.loads(line))) + "\n")
        sys.stdout.flush()
