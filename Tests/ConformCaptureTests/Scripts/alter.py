# Rewrites a real capture as a network would have delivered it worse, with Scapy:
#   alter.py IN OUT reorder     every data segment split in two halves, the second half first
#   alter.py IN OUT duplicate   every data segment followed by a retransmission of it, and an overlapping half
#   alter.py IN OUT drop N PORT the N-th data segment to server port PORT (1-based) never captured
import sys
from scapy.all import rdpcap, wrpcap, IP, TCP, Raw

source, target, mode = sys.argv[1], sys.argv[2], sys.argv[3]
packets = rdpcap(source)


def with_payload(packet, payload, offset):
    out = packet.copy()
    out[TCP].remove_payload()
    out[TCP].add_payload(Raw(payload))
    out[TCP].seq = (packet[TCP].seq + offset) % (1 << 32)
    del out[IP].len
    del out[IP].chksum
    del out[TCP].chksum
    out.time = packet.time
    return out


written = []
client_segments = 0
for packet in packets:
    payload = bytes(packet[TCP].payload) if TCP in packet else b""
    if not payload:
        written.append(packet)
        continue
    if mode == "reorder" and len(payload) >= 2:
        half = len(payload) // 2
        written.append(with_payload(packet, payload[half:], half))
        written.append(with_payload(packet, payload[:half], 0))
    elif mode == "duplicate":
        written.append(packet)
        written.append(packet.copy())
        written.append(with_payload(packet, payload[: max(1, len(payload) // 2)], 0))
    elif mode == "drop":
        if packet[TCP].dport == int(sys.argv[5]):
            client_segments += 1
            if client_segments == int(sys.argv[4]):
                continue
        written.append(packet)
    else:
        written.append(packet)
wrpcap(target, written)
