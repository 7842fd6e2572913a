# A server answering every request on one kept-alive connection with a gzip body in chunks, the way a framework
# behind a gateway does; prints its port, serves one connection, exits (at most 30 s).
import gzip, json, socket, sys

listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(1)
listener.settimeout(30)
print(listener.getsockname()[1], flush=True)
connection, _ = listener.accept()
connection.settimeout(30)
pending = b""
served = 0
while True:
    while b"\r\n\r\n" not in pending:
        data = connection.recv(65536)
        if not data:
            sys.exit(0)
        pending += data
    head, _, pending = pending.partition(b"\r\n\r\n")
    target = head.split(b" ")[1].decode()
    served += 1
    body = gzip.compress(json.dumps({"served": served, "target": target, "padding": "x" * 4000}).encode())
    out = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"
    for start in range(0, len(body), 700):
        piece = body[start : start + 700]
        out += b"%x\r\n" % len(piece) + piece + b"\r\n"
    connection.sendall(out + b"0\r\n\r\n")
