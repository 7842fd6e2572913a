"""Side-by-side cost of one checked exchange: Tavern, a python-requests loop, `conform run`, unchecked `curl -K`.

The same push lifecycle (register, personalize, depersonalize, PATCH; each response checked for status, content
type and body members, the registration id captured and used in the next URLs) against nginx serving static twins
of the four answers on loopback. Each tool runs N1 and N2 exchanges in one process; the marginal cost per exchange,
(median time at N2 - median time at N1) / (N2 - N1), leaves out start-up (Python imports, pytest collection,
suite loading). Usage: peers.py CONFORM_BINARY NGINX_BASE_URL WORKDIR [N1 N2 RUNS]
"""

import json
import os
import statistics
import subprocess
import sys
import time

REG_ID = "0f8fad5b-d9cb-469f-a165-70867728950e"
ANSWERS = {
    "register": {"pushRegId": REG_ID, "regEnabled": True, "isPrimary": False},
    "personalize": {"externalUserId": "cust-1", "type": "CUSTOMER"},
    "depersonalize": {},
    "patch": {"pushRegId": REG_ID, "regEnabled": False},
}


def nginx_locations():
    """The static twins: one `return 200` per endpoint, whatever the method."""
    def ret(name):
        return "return 200 '%s';" % json.dumps(ANSWERS[name], separators=(",", ":"))
    return "\n".join([
        "location = /mobile/1/appinstance { %s }" % ret("register"),
        "location ~ ^/mobile/1/appinstance/[^/]+/personalize$ { %s }" % ret("personalize"),
        "location ~ ^/mobile/1/appinstance/[^/]+/depersonalize$ { %s }" % ret("depersonalize"),
        "location ~ ^/mobile/1/appinstance/[^/]+$ { %s }" % ret("patch"),
    ])


def steps(n):
    """n exchanges of the lifecycle: (name, method, path, body, checked members)."""
    cycle = [
        ("register", "POST", "/mobile/1/appinstance?ri=true",
         {"pushServiceToken": "t-{i}", "pushServiceType": "Firebase"}, {"regEnabled": True}),
        ("personalize", "POST", "/mobile/1/appinstance/{reg}/personalize?forceDepersonalize=false",
         {"userIdentity": {"externalUserId": "cust-1"}}, {"type": "CUSTOMER"}),
        ("depersonalize", "POST", "/mobile/1/appinstance/{reg}/depersonalize", None, {}),
        ("patch", "PATCH", "/mobile/1/appinstance/{reg}", {"regEnabled": False}, {"regEnabled": False}),
    ]
    return [(i,) + cycle[i % 4] for i in range(n)]


def conform_suite(n):
    out = ["suite: peers", "title: the push lifecycle, every answer checked", "vars: {appCode: conform-app-code}",
           "steps:"]
    for i, name, method, path, body, members in steps(n):
        out += ["  - name: %s %d" % (name, i), "    request:", "      method: %s" % method,
                "      url: \"{{ mobile }}%s\"" % path.replace("{reg}", "{{ reg }}"),
                "      headers: {Authorization: \"App {{ appCode }}\"}"]
        if body is not None:
            out.append("      json: %s" % json.dumps(body).replace("{i}", str(i)))
        expect = dict(members)
        if name == "register":
            expect["pushRegId"] = {"$type": "string"}
        out += ["    expect:", "      status: 200", "      headers: {Content-Type: {$regex: \"^application/json\"}}"]
        if expect:
            out.append("      json: %s" % json.dumps(expect))
        if name == "register":
            out.append("    capture: {reg: $.pushRegId}")
    return "\n".join(out) + "\n"


def tavern_test(n, base):
    out = ["test_name: the push lifecycle, every answer checked", "stages:"]
    for i, name, method, path, body, members in steps(n):
        url = base + path.replace("{reg}", "{reg_id}")
        out += ["  - name: %s %d" % (name, i), "    request:", "      url: \"%s\"" % url,
                "      method: %s" % method, "      headers: {Authorization: \"App conform-app-code\"}"]
        if body is not None:
            out.append("      json: %s" % json.dumps(body).replace("{i}", str(i)))
        out += ["    response:", "      status_code: 200", "      headers: {content-type: application/json}"]
        if ANSWERS[name]:
            out.append("      json:")
            for key, value in ANSWERS[name].items():
                shown = "!anystr" if key == "pushRegId" else json.dumps(value)
                out.append("        %s: %s" % (key, shown))
        if name == "register":
            out += ["      save:", "        json: {reg_id: pushRegId}"]
    return "\n".join(out) + "\n"


REQUESTS_LOOP = r'''
import sys, requests
base, n = sys.argv[1], int(sys.argv[2])
steps = %s
s = requests.Session()
reg = None
for i, name, method, path, body, members in steps[:n]:
    url = base + path.replace("{reg}", reg or "")
    payload = None if body is None else {k: (v.replace("{i}", str(i)) if isinstance(v, str) else v) for k, v in body.items()}
    r = s.request(method, url, json=payload, headers={"Authorization": "App conform-app-code"})
    assert r.status_code == 200, (url, r.status_code)
    assert r.headers["Content-Type"].startswith("application/json"), r.headers
    data = r.json()
    for k, v in members.items():
        assert data[k] == v, (k, data)
    if name == "register":
        assert isinstance(data["pushRegId"], str)
        reg = data["pushRegId"]
'''


def curl_config(n, base):
    out = []
    for i, name, method, path, body, members in steps(n):
        out += ['url = "%s"' % (base + path.replace("{reg}", REG_ID)), 'request = "%s"' % method,
                'header = "Authorization: App conform-app-code"', 'output = "/dev/null"']
        if body is not None:
            out += ['header = "Content-Type: application/json"',
                    "data = %s" % json.dumps(json.dumps(body).replace("{i}", str(i)))]
        out.append("next")
    return "\n".join(out[:-1]) + "\n"


def timed(command, env=None):
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (done.returncode, " ".join(command), done.stdout.decode()[-2000:]))
    return elapsed


def main():
    conform, base, work = sys.argv[1], sys.argv[2].rstrip("/"), sys.argv[3]
    n1, n2, runs = (int(a) for a in (sys.argv[4:7] if len(sys.argv) >= 7 else (100, 1000, 3)))
    python = sys.executable
    tools = {}
    for n in (n1, n2):
        d = os.path.join(work, "n%d" % n)
        os.makedirs(d, exist_ok=True)
        paths = {k: os.path.join(d, f) for k, f in
                 [("suite", "peers.yaml"), ("tavern", "test_peers.tavern.yaml"), ("loop", "loop.py"),
                  ("curl", "curl.cfg")]}
        open(paths["suite"], "w").write(conform_suite(n))
        open(paths["tavern"], "w").write(tavern_test(n, base))
        open(paths["loop"], "w").write(REQUESTS_LOOP % repr(steps(n)))
        open(paths["curl"], "w").write(curl_config(n, base))
        tools.setdefault("Tavern 3.7.1 (pytest)", {})[n] = [
            python, "-m", "pytest", "-q", "-p", "no:cacheprovider", paths["tavern"]]
        tools.setdefault("python-requests loop with checks", {})[n] = [python, paths["loop"], base, str(n)]
        tools.setdefault("conform run", {})[n] = [conform, "run", "--no-color", paths["suite"], "--target", base]
        tools.setdefault("curl -K, one connection, no checks", {})[n] = ["curl", "-sS", "-K", paths["curl"]]
    times = {tool: {n1: [], n2: []} for tool in tools}
    for _ in range(runs):  # alternate tools and sizes, so load changes hit all of them alike
        for tool, commands in tools.items():
            for n in (n1, n2):
                times[tool][n].append(timed(commands[n]))
    print("| tool | ms per checked exchange | ratio to `conform run` | runs at N=%d / N=%d (s) |" % (n1, n2))
    print("|---|---|---|---|")
    marginal = {t: (statistics.median(v[n2]) - statistics.median(v[n1])) / (n2 - n1) * 1000 for t, v in times.items()}
    for tool in tools:
        runs_text = " / ".join("%.2f" % t for t in times[tool][n1]) + " ; " + " / ".join(
            "%.2f" % t for t in times[tool][n2])
        name = "**%s**" % tool if tool == "conform run" else tool
        print("| %s | %.3f | %.1f× | %s |" % (name, marginal[tool], marginal[tool] / marginal["conform run"], runs_text))


if __name__ == "__main__":
    main()
