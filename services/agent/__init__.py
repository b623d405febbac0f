"""The device agent service: measures candidates on its device (see docs/services.md)."""
