"""`conform run` against unchecked `curl -K` on one connection: the peers' lifecycle (bench/peers/peers.py) against
the nginx twins, each binary and curl alternating at N1 and N2 steps, RUNS times. Prints, per tool, the marginal
wall time and CPU time (user + system of the child) per exchange, (median at N2 - median at N1) / (N2 - N1), and
each conform binary's ratio to curl measured in the same run.
Usage: run_vs_curl.py NGINX_BASE_URL WORKDIR N1 N2 RUNS CONFORM_BINARY [CONFORM_BINARY...]
"""

import os
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peers"))
import peers  # noqa: E402


def timed(command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (done.returncode, " ".join(command), done.stdout.decode()[-2000:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    base, work = sys.argv[1].rstrip("/"), sys.argv[2]
    n1, n2, runs = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    binaries = sys.argv[6:]
    tools = {}
    for n in (n1, n2):
        suite, config = os.path.join(work, "s%d.yaml" % n), os.path.join(work, "c%d.cfg" % n)
        open(suite, "w").write(peers.conform_suite(n))
        open(config, "w").write(peers.curl_config(n, base))
        for i, binary in enumerate(binaries):
            name = "conform run" + ("" if len(binaries) == 1 else " [%d] %s" % (i, binary))
            tools.setdefault(name, {})[n] = [binary, "run", "--no-color", suite, "--target", base]
        tools.setdefault("curl -K", {})[n] = ["curl", "-sS", "-K", config]
    wall = {t: {n1: [], n2: []} for t in tools}
    cpu = {t: {n1: [], n2: []} for t in tools}
    for _ in range(runs):  # alternate tools and sizes, so load changes hit all of them alike
        for tool, commands in tools.items():
            for n in (n1, n2):
                w, c = timed(commands[n])
                wall[tool][n].append(w)
                cpu[tool][n].append(c)

    def marginal(table, tool):
        return (statistics.median(table[tool][n2]) - statistics.median(table[tool][n1])) / (n2 - n1) * 1e6

    curl_wall, curl_cpu = marginal(wall, "curl -K"), marginal(cpu, "curl -K")
    print("| tool | µs wall per exchange | ratio to curl -K | µs CPU per exchange | CPU ratio |")
    print("|---|---|---|---|---|")
    for tool in tools:
        w, c = marginal(wall, tool), marginal(cpu, tool)
        print("| %s | %.1f | %.2f× | %.1f | %.2f× |" % (tool, w, w / curl_wall, c, c / curl_cpu))
    for tool in tools:
        print("%s runs (wall s) N=%d: %s ; N=%d: %s" % (
            tool, n1, " / ".join("%.3f" % t for t in wall[tool][n1]),
            n2, " / ".join("%.3f" % t for t in wall[tool][n2])))


if __name__ == "__main__":
    main()
