"""Job counts and listings at scale on a real Redis: counts come from the per-state indexes
kept in step with every write (a metrics scrape reads no documents), listings read pages."""

from __future__ import annotations

import uuid

import pytest

from tunefarm.distributed.jobs import STATES, JobStore


@pytest.fixture
def jobs(service_config, tmp_path):
    config = service_config.with_(prefix=f"cnt-{uuid.uuid4().hex[:8]}", artifacts=tmp_path)
    return JobStore(config)


def walk(jobs: JobStore) -> dict[str, int]:
    counts = dict.fromkeys(STATES, 0)
    for doc in jobs.list(limit=10**9):
        counts[doc["state"]] += 1
    return counts


def test_counts_follow_every_state_change(jobs):
    ids = [jobs.create({"name": f"j{i}", "tenant": "t"})["id"] for i in range(250)]
    for job_id in ids[:40]:
        jobs.set_state(job_id, "tuning")
    for job_id in ids[:10]:
        jobs.set_state(job_id, "done")
    jobs.update(ids[45], trials_done=3)  # progress: no state change
    jobs.delete(ids[-1])
    counts = jobs.count_by_state()
    assert counts == walk(jobs)
    assert (counts["queued"], counts["tuning"], counts["done"]) == (209, 30, 10)


def test_a_redis_from_before_the_indexes_is_counted_from_the_documents(jobs):
    for i in range(5):
        jobs.create({"name": f"j{i}"})
    jobs.r.delete(jobs.config.key("jobs", "indexed"), jobs._index_key(state="queued"))
    assert jobs.count_by_state()["queued"] == 5  # filled once from the documents
    assert jobs.r.exists(jobs.config.key("jobs", "indexed"))


def test_listing_reads_pages_newest_first(jobs):
    ids = [jobs.create({"name": f"j{i}", "tenant": "a" if i % 3 else "b"})["id"]
           for i in range(450)]  # fmt: skip
    newest = jobs.list(limit=5)
    assert [d["id"] for d in newest] == ids[::-1][:5]
    tenant_b = jobs.list(limit=1000, tenant="b")
    assert len(tenant_b) == 150 and all(d["tenant"] == "b" for d in tenant_b)
