// ConformCrypto: see docs/architecture.md.
