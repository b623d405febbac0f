"""The buildfarm service (see docs/services.md)."""
