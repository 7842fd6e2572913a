// ConformServer: see docs/architecture.md.
