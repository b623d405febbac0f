"""The converter service (see docs/services.md)."""
