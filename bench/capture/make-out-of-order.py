# Writes a pcap of one request sent as one-byte segments, last first, for measuring reassembly (docs/hostile-input.md):
#   python3 bench/capture/make-out-of-order.py OUT.pcap [SEGMENTS]
# SEGMENTS (default 128,000) one-byte segments of a POST, in reverse order, then its response; Ethernet/IPv4.
import struct, sys

out_path = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 128_000
out = open(out_path, "wb", buffering=1 << 20)
out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))


def segment(from_client, seq, ack, flags, payload=b""):
    ports = (40000, 8080) if from_client else (8080, 40000)
    tcp = struct.pack("!HHIIBBHHH", ports[0], ports[1], seq & 0xFFFFFFFF, ack, 0x50, flags, 65535, 0, 0) + payload
    a, b = b"\x0a\x00\x00\x01", b"\x0a\x00\x00\x02"
    ip = struct.pack("!BBHHHBBH", 0x45, 0, 20 + len(tcp), 0, 0x4000, 64, 6, 0) + (a + b if from_client else b + a)
    frame = b"\x00" * 12 + b"\x08\x00" + ip + tcp
    out.write(struct.pack("<IIII", 1_800_000_000, 0, len(frame), len(frame)) + frame)


client, server = 1000, 5000
segment(True, client, 0, 0x02)
segment(False, server, client + 1, 0x12)
client += 1
server += 1
head = b"POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: %d\r\n\r\n"
body = count - len(head % 100000)
request = (head % body) + b"a" * body
for i in reversed(range(count)):
    segment(True, client + i, server, 0x10, request[i : i + 1])
client += count
response = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
segment(False, server, client, 0x10, response)
server += len(response)
segment(True, client, server, 0x11)
segment(False, server, client + 1, 0x11)
out.close()
