// ConformReference: see docs/architecture.md.
