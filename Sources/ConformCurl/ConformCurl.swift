// ConformCurl: see docs/architecture.md.
