"""The devicerpc service (see docs/services.md)."""
