# Writes a large synthetic pcap of HTTP/1.1 traffic for measuring `conform import` (docs/performance.md):
#   python3 bench/capture/make-capture.py OUT.pcap MEGABYTES
# Connections of 20 kept-alive exchanges each (a registration-like POST, then GETs answered with a 16 KiB JSON
# body in 1448-byte segments), 64 connections open at once with their packets interleaved, Ethernet/IPv4.
import struct, sys

out_path, megabytes = sys.argv[1], int(sys.argv[2])
limit = megabytes << 20
out = open(out_path, "wb", buffering=1 << 20)
out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
written = 24
clock = 1_800_000_000.0


def frame(src_port, dst_port, seq, ack, flags, payload=b"", to_server=True):
    global written, clock
    a, b = (b"\x0a\x00\x00\x01", b"\x0a\x00\x00\x02") if to_server else (b"\x0a\x00\x00\x02", b"\x0a\x00\x00\x01")
    tcp = struct.pack("!HHIIBBHHH", src_port, dst_port, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, 0x50, flags, 65535, 0, 0)
    ip = struct.pack("!BBHHHBBH", 0x45, 0, 20 + len(tcp) + len(payload), 0, 0x4000, 64, 6, 0) + a + b
    data = b"\x00" * 12 + b"\x08\x00" + ip + tcp + payload
    clock += 0.00002
    seconds = int(clock)
    out.write(struct.pack("<IIII", seconds, int((clock - seconds) * 1e6), len(data), len(data)) + data)
    written += 16 + len(data)


body = b'{"instances":[' + b",".join(b'{"pushRegId":"%032d","os":"Android"}' % i for i in range(300)) + b"]}"
body = body[:16384]


class Connection:
    def __init__(self, number):
        self.port = 10000 + number % 50000
        self.c, self.s = 1000, 7000
        self.step = 0
        self.id = b"%08d-0000-4000-8000-000000000000" % number

    def advance(self):
        """Writes the next exchange (or the handshake, or the close); False once closed."""
        if self.step == 0:
            frame(self.port, 8080, self.c, 0, 0x02)
            frame(8080, self.port, self.s, self.c + 1, 0x12, to_server=False)
            self.c += 1
            self.s += 1
        elif self.step <= 20:
            request = (
                b"GET /mobile/1/appinstance/%s/user HTTP/1.1\r\nHost: broker\r\npushregistrationid: %s\r\n"
                b"Authorization: App app-code\r\n\r\n" % (self.id, self.id)
            )
            frame(self.port, 8080, self.c, self.s, 0x18, request)
            self.c += len(request)
            response = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (
                len(body), body)
            for start in range(0, len(response), 1448):
                piece = response[start : start + 1448]
                frame(8080, self.port, self.s, self.c, 0x18, piece, to_server=False)
                self.s += len(piece)
        else:
            frame(self.port, 8080, self.c, self.s, 0x11)
            frame(8080, self.port, self.s, self.c + 1, 0x11, to_server=False)
            return False
        self.step += 1
        return True


number = 0
open_connections = []
while written < limit:
    while len(open_connections) < 64:
        number += 1
        open_connections.append(Connection(number))
    open_connections = [c for c in open_connections if c.advance()]
for c in open_connections:
    while c.advance():
        pass
out.close()
print(f"{out_path}: {written} bytes, {number} connections")
