#!/usr/bin/env python3
"""TLS handshakes against one server on loopback, and the server's CPU while they run (bench/tls/run.sh).

Usage: handshakes.py MODE PORT SECONDS SERVER_PIDS CAFILE [CLIENTS]
  fast     CLIENTS processes (default 2) each open a new connection, complete a full handshake (no session
           resumption) and close it, again and again, with a context made once.
  store    the same, but each connection loads a trust store (the system's, 139 certificates on Debian 12, and CAFILE)
           after the TCP connection opens and before the ClientHello, as curl does for each new connection.
  stalled  CLIENTS connections (default 4) each send the first 20 bytes of a ClientHello and stall; after a second,
           the server's CPU is read over SECONDS while a normal client handshakes once a second beside them.
SERVER_PIDS: comma-separated processes whose user and system time (/proc/PID/stat) is the server's CPU.
Prints one line of key=value pairs.
"""
import multiprocessing
import os
import socket
import ssl
import sys
import time

SYSTEM_STORE = "/etc/ssl/certs/ca-certificates.crt"


def server_cpu(pids):
    """The user and system seconds the processes have used so far."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def context(cafile, store):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if store:
        ctx.load_verify_locations(store)
    ctx.load_verify_locations(cafile)
    return ctx


def handshake(port, ctx, store_file=None, cafile=None):
    """One full handshake on a new connection; with `store_file`, the trust store is loaded once the TCP
    connection is open."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as raw:
        if store_file is not None:
            ctx = context(cafile, store_file)
        with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            tls.do_handshake()


def worker(port, seconds, cafile, store_file, results):
    ctx = context(cafile, None)
    count = 0
    failures = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            handshake(port, ctx, store_file, cafile)
            count += 1
        except (OSError, ssl.SSLError):
            failures += 1
    results.put((count, failures))


def partial_client_hello():
    """The first 20 bytes of a real ClientHello (Python's own, for 127.0.0.1)."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    session = ctx.wrap_bio(incoming, outgoing, server_hostname="127.0.0.1")
    try:
        session.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()[:20]


def main():
    mode, port, seconds, pids, cafile = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
    pids = [int(pid) for pid in pids.split(",") if pid]
    if mode in ("fast", "store"):
        clients = int(sys.argv[6]) if len(sys.argv) > 6 else 2
        store_file = None
        if mode == "store":
            store_file = os.path.join(os.path.dirname(os.path.abspath(cafile)), "store.pem")
            with open(SYSTEM_STORE) as system, open(cafile) as own:
                text = system.read() + own.read()
            if text.count("BEGIN CERTIFICATE") < 100:
                sys.exit(f"{SYSTEM_STORE} holds too few certificates; the store client needs about 140")
            with open(store_file, "w") as out:
                out.write(text)
        results = multiprocessing.Queue()
        before = server_cpu(pids)
        started = time.monotonic()
        workers = [
            multiprocessing.Process(target=worker, args=(port, seconds, cafile, store_file, results))
            for _ in range(clients)
        ]
        for process in workers:
            process.start()
        totals = [results.get() for _ in workers]
        for process in workers:
            process.join()
        elapsed = time.monotonic() - started
        cpu = server_cpu(pids) - before
        count = sum(done for done, _ in totals)
        failures = sum(failed for _, failed in totals)
        per = cpu / count * 1e6 if count else 0
        store = f" store_certificates={text.count('BEGIN CERTIFICATE')}" if store_file else ""
        print(
            f"handshakes={count} failures={failures} per_second={count / elapsed:.0f} server_cpu_us={per:.0f}{store}"
        )
    elif mode == "stalled":
        clients = int(sys.argv[6]) if len(sys.argv) > 6 else 4
        hello = partial_client_hello()
        held = []
        for _ in range(clients):
            connection = socket.create_connection(("127.0.0.1", port), timeout=30)
            connection.sendall(hello)
            held.append(connection)
        ctx = context(cafile, None)
        time.sleep(1)
        before = server_cpu(pids)
        started = time.monotonic()
        normal = 0
        slowest = 0.0
        while time.monotonic() - started < seconds:
            began = time.monotonic()
            try:
                handshake(port, ctx)
                normal += 1
                slowest = max(slowest, time.monotonic() - began)
            except (OSError, ssl.SSLError):
                pass
            time.sleep(max(0.0, 1.0 - (time.monotonic() - began)))
        elapsed = time.monotonic() - started
        cpu = server_cpu(pids) - before
        still_held = 0
        for connection in held:
            connection.setblocking(False)
            try:
                still_held += 1 if connection.recv(1) is None else 0
            except BlockingIOError:
                still_held += 1
            except OSError:
                pass
            connection.close()
        print(
            f"stalled={clients} held={still_held} server_cpu_per_second={cpu / elapsed:.3f} "
            f"normal_handshakes={normal} slowest_ms={slowest * 1000:.1f}"
        )
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
