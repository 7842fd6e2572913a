#!/usr/bin/env python3
"""Reads a HAR the way its consumers do and prints what each one saw, for HARConsumerTests.

    read_har.py schema HAR SCHEMA      validate against the HAR 1.2 JSON schema (jsonschema), and each entry's time
                                       against the sum of its timings; prints "valid N" or each problem
    read_har.py haralyzer HAR          haralyzer's entries: one JSON line per entry (method, url, status, mime type,
                                       body length, start time)
    read_har.py playwright HAR CHROME  Chromium through Playwright's routeFromHAR (not_found=abort): each GET entry
                                       opened as a page, each other entry fetched from its origin with its recorded
                                       body; one JSON line per answer served from the HAR (method, url, status, body)
"""
import json
import sys


def schema(har_path, schema_path):
    import jsonschema

    with open(har_path) as f:
        har = json.load(f)
    with open(schema_path) as f:
        validator = jsonschema.Draft202012Validator(json.load(f))
    problems = ["/".join(str(p) for p in e.absolute_path) + ": " + e.message for e in validator.iter_errors(har)]
    for i, entry in enumerate(har["log"].get("entries", [])):
        timings = entry.get("timings", {})
        total = sum(v for k, v in timings.items() if not k.startswith("_") and k != "comment" and v != -1)
        if abs(total - entry.get("time", 0)) > 0.001:
            problems.append(f"log/entries/{i}/time: {entry.get('time')} is not the sum of its timings, {total}")
    for problem in problems:
        print(problem)
    if not problems:
        print(f"valid {len(har['log']['entries'])}")
    return 1 if problems else 0


def haralyzer(har_path):
    from haralyzer import HarEntry, HarParser

    with open(har_path) as f:
        parser = HarParser(json.load(f))
    for raw in parser.har_data["entries"]:
        entry = HarEntry(raw)
        print(json.dumps({
            "method": entry.request.method, "url": entry.request.url, "status": entry.response.status,
            "mimeType": entry.response.mimeType, "bodyLength": len(entry.response.text or ""),
            "start": entry.startTime.isoformat(),
        }))
    return 0


def playwright(har_path, chrome):
    from urllib.parse import urlsplit
    from playwright.sync_api import sync_playwright

    with open(har_path) as f:
        entries = json.load(f)["log"]["entries"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chrome, args=["--no-sandbox"])
        try:
            context = browser.new_context()
            context.route_from_har(har_path, not_found="abort")
            page = context.new_page()
            for entry in entries:
                request = entry["request"]
                url = request["url"]
                if request["method"] == "GET":
                    response = page.goto(url)
                    answer = {"status": response.status, "body": response.text()}
                else:
                    # A page of the same origin, so the fetch is same-origin: every GET of the HAR is one.
                    origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))
                    home = next(e["request"]["url"] for e in entries
                                if e["request"]["method"] == "GET" and e["request"]["url"].startswith(origin + "/"))
                    page.goto(home)
                    answer = page.evaluate(
                        """async ([url, method, body, type]) => {
                            const r = await fetch(url, {method, body: body || undefined,
                                headers: type ? {"Content-Type": type} : {}});
                            return {status: r.status, body: await r.text()};
                        }""",
                        [url, request["method"], request.get("postData", {}).get("text"),
                         request.get("postData", {}).get("mimeType")])
                print(json.dumps({"method": request["method"], "url": url, **answer}))
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "schema":
        sys.exit(schema(sys.argv[2], sys.argv[3]))
    if mode == "haralyzer":
        sys.exit(haralyzer(sys.argv[2]))
    if mode == "playwright":
        sys.exit(playwright(sys.argv[2], sys.argv[3]))
    sys.exit(f"unknown mode {mode}")
