// ConformRunner: see docs/architecture.md.
