"""/api/v1/records and /records/stats on a real SQLite store: best first, paged by cursor,
per tenant (a `records=fleet` token also reads the fleet's); the submission's reuse fields;
the store's metrics; the search worker's store for a job when PostgreSQL is unreachable
(the job goes on, its records spool) and when it is back (flushed once)."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from store_helpers import CONV, NEAR, rec, refuted  # noqa: E402

from tunefarm.backends import registry  # noqa: E402
from tunefarm.distributed import records_store  # noqa: E402
from tunefarm.store import FLEET_TENANT, open_store  # noqa: E402

pytestmark = pytest.mark.integration

VISION = "vision-" + uuid.uuid4().hex
AUDIO = "audio-" + uuid.uuid4().hex
FLEET = "fleet-" + uuid.uuid4().hex
SPEECH = "speech-" + uuid.uuid4().hex


@pytest.fixture(scope="module")
def config(service_config, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("records-api")
    (tmp / "tokens").write_text(
        f"{VISION} read,submit tenant=vision ci vision\n"
        f"{AUDIO} read tenant=audio dashboard\n"
        f"{FLEET} read tenant=audio records=fleet fleet reader\n"
        f"{SPEECH} read tenant=speech asr\n"
    )
    store = str(tmp / "records.sqlite")
    with open_store(store, "vision") as s:
        s.put([rec(i, (i + 1) * 1e-3) for i in range(7)])
    with open_store(store, FLEET_TENANT) as s:
        s.put([rec(0, 5e-4, NEAR)])
    with open_store(store, "speech") as s:
        s.put([rec(1, 1e-3), refuted(rec(2, 5e-4), against=1)])
    return service_config.with_(tokens_file=str(tmp / "tokens"), store=store)


@pytest.fixture(scope="module")
def client(config):
    from tunefarm_services.gateway.app import create_app

    app = create_app(config, blueprints=[])
    app.testing = True
    return app.test_client()


def get(client, path: str, token: str):
    return client.get(f"/api/v1{path}", headers={"Authorization": f"Bearer {token}"})


def test_records_are_listed_best_first_page_by_page(client) -> None:
    first = get(client, f"/records?workload={CONV.workload_key}&limit=4", VISION).get_json()
    assert [r["config"]["index"] for r in first["records"]] == [0, 1, 2, 3]
    assert first["records"][0]["latency_ms"] == pytest.approx(1.0)
    rest = get(client, f"/records?limit=4&cursor={first['next_cursor']}", VISION).get_json()
    assert [r["config"]["index"] for r in rest["records"]] == [4, 5, 6]
    assert rest["next_cursor"] is None
    bad = get(client, "/records?cursor=nonsense", VISION)
    assert bad.status_code == 400 and "cursor" in bad.get_json()["fields"]


def test_tenants_see_their_records_and_the_fleet_only_when_granted(client) -> None:
    assert get(client, "/records", AUDIO).get_json()["records"] == []
    fleet = get(client, "/records", FLEET).get_json()["records"]
    assert [r["workload_key"] for r in fleet] == [NEAR.workload_key]  # not vision's
    stats = get(client, "/records/stats", VISION).get_json()
    assert stats["records"] == 7 and stats["fleet"] is False
    row = stats["by_workload"][0]
    assert row["workload_key"] == CONV.workload_key and row["trials"] == 7
    assert row["best_gflops"] > 0
    assert get(client, "/records/stats", FLEET).get_json()["records"] == 1


def test_a_refuted_record_is_neither_listed_best_nor_the_best_column(client) -> None:
    """A record its recheck refuted (faster by the rounds it lost) is not a best: the list
    (best first) and the Records page's best GFLOP/s column both come from the incumbent."""
    listed = get(client, "/records", SPEECH).get_json()["records"]
    assert [r["config"]["index"] for r in listed] == [1]
    (row,) = get(client, "/records/stats", SPEECH).get_json()["by_workload"]
    assert row["trials"] == 2
    assert row["best_gflops"] == pytest.approx(registry.flops(CONV) / 1e-3 / 1e9)


def test_no_store_is_503_and_reuse_fields_are_checked(config) -> None:
    from tunefarm_services.gateway.app import create_app

    app = create_app(config.with_(store="none"), blueprints=[])
    plain = app.test_client()
    reply = get(plain, "/records", VISION)
    assert reply.status_code == 503 and "TUNEFARM_STORE" in reply.get_json()["error"]
    job = {"model": "zoo:resnet-18", "target": "cpu", "device_key": "none", "trials": 4}
    reply = plain.post(
        "/api/v1/jobs",
        json={**job, "reuse": "always", "reuse_min_trials": 0},
        headers={"Authorization": f"Bearer {VISION}"},
    )
    fields = reply.get_json()["fields"]
    assert "one of best, warm, off" in fields["reuse"] and "reuse_min_trials" in fields


def test_a_job_spools_while_postgres_is_down_and_flushes_once(config, tmp_path) -> None:
    from tunefarm import metrics

    down = config.with_(store="postgresql://tunefarm@127.0.0.1:1/tunefarm", artifacts=tmp_path)
    reader, writer = records_store.open_for_job(down, {"id": "j1", "tenant": "vision"})
    assert reader is None and writer is not None  # tuned cold, but records are kept
    assert writer.put([rec(0, 1e-3), rec(1, 2e-3)]) == 0 and writer.depth() == 2
    records_store.publish(reader, writer, {"trials_saved": 0})
    assert metrics.SPOOL_DEPTH._value.get() == 2
    store = str(tmp_path / "back.sqlite")
    up = spool_at(writer.path.parent, store)
    assert up.put([rec(1, 2e-3), rec(2, 3e-3)]) == 1  # spool first, then the batch
    with open_store(store, "vision") as s:
        assert [r.config.index for r in s.iter_records()] == [0, 1, 2]
    records_store.close(reader, writer)


def spool_at(spool_dir: Path, store: str):
    """The same spool directory, now with a store that answers (the worker restarted)."""
    from tunefarm.store.spool import SpooledStore

    return SpooledStore.for_url(store, spool_dir, "vision")


def test_a_warm_job_refreshes_the_fleet_set_in_the_background(config) -> None:
    from tunefarm.recipe import reuse

    doc = {"tenant": "vision", "target": "cpu", "device_key": "local", "reuse": "warm"}
    assert records_store.refresh(config.with_(store="none"), doc) is None
    assert records_store.refresh(config, {**doc, "reuse": "best"}) is None
    records_store.refresh(config, doc).join(30)
    with open_store(config.store, "vision") as store:
        cached = reuse._FLEET[(store.url, "cpu", "local")]
        assert cached[0] == store.revision() and len(cached[1]) == 7
