"""The extractor service (see docs/services.md)."""
