"""The search service (see docs/services.md)."""
