"""The tokens and device key of the API fuzz tests (a module of its own: `conftest` is a
name every test folder has, so tests import these from here, not from it)."""

import uuid

TOKEN = "fuzz-" + uuid.uuid4().hex
READ_TOKEN = "fuzz-read-" + uuid.uuid4().hex
METRICS_TOKEN = "fuzz-metrics-" + uuid.uuid4().hex
DEVICE_KEY = "fuzz-key"
