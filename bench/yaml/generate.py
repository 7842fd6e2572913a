#!/usr/bin/env python3
"""Writes a synthetic single-document YAML file of about N megabytes (default 20) for the parser benchmark."""
import sys

path = sys.argv[1]
target = int(float(sys.argv[2] if len(sys.argv) > 2 else "20") * 1_000_000)
written = 0
index = 0
with open(path, "w", encoding="utf-8") as out:
    while written < target:
        record = (
            f"- id: {index}\n"
            f"  name: \"record {index} with a quoted name\"\n"
            f"  kind: {'request' if index % 2 else 'response'}\n"
            f"  tags: [alpha, beta, 'gamma {index % 7}', {index % 100}]\n"
            f"  meta:\n"
            f"    score: {index * 0.25}\n"
            f"    active: {'true' if index % 3 else 'false'}\n"
            f"    owner: ~\n"
            f"    headers:\n"
            f"      Content-Type: application/json\n"
            f"      X-Request-Id: 'req-{index:08d}'\n"
            f"  body: |\n"
            f"    {{\"id\": {index}, \"text\": \"héllo wörld\"}}\n"
            f"    second line of the literal block\n"
        )
        out.write(record)
        written += len(record.encode("utf-8"))
        index += 1
