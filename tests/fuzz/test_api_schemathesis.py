"""Property-based fuzzing of the REST API with schemathesis, from our own OpenAPI document
(`/api/v1/openapi.json`): for every operation, requests that follow the schema and requests
that break it (wrong types, missing fields, out-of-range numbers, odd strings), with a
valid token. The contract: no 500, no traceback in any answer, every answer in time, and
the gateway healthy at the end."""

from __future__ import annotations

import time

import pytest
import schemathesis
from api_tokens import TOKEN
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from tunefarm_services.gateway.openapi import document

pytestmark = pytest.mark.integration

SCHEMA = schemathesis.openapi.from_dict(document())
OPERATIONS = [result.ok() for result in SCHEMA.get_all_operations()]
EXAMPLES = 25  # per operation and mode: ~600 requests in all, about half a minute
SLOW_S = 5.0


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda op: op.label)
def test_no_request_breaks_the_gateway(fuzz_app, operation, mode):
    operation.schema.app = fuzz_app
    seen: list[int] = []

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def run(case):
        start = time.monotonic()
        response = case.call(headers={"Authorization": f"Bearer {TOKEN}"}, app=fuzz_app)
        elapsed = time.monotonic() - start
        body = response.text if response.content else ""
        assert response.status_code < 500, (case.method, case.path, response.status_code, body)
        assert "Traceback" not in body
        assert elapsed < SLOW_S, f"{case.method} {case.formatted_path} took {elapsed:.1f} s"
        seen.append(response.status_code)

    try:
        run()
    except Unsatisfiable:  # nothing to break: an operation without parameters or body
        assert mode == GenerationMode.NEGATIVE
        return
    assert seen
    assert fuzz_app.test_client().get("/healthz").status_code == 200
