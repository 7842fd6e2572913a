// ConformTraffic: see docs/architecture.md.
