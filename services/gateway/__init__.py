"""The gateway: REST API under /api/v1, the web UI and /metrics (see docs/services.md)."""
