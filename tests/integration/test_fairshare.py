"""Fair shares on a real Redis: which job a free search slot runs (tenants, priorities,
dead slots), and round robin between jobs on a build or measure queue."""

from __future__ import annotations

import uuid

import pytest

from tunefarm.distributed.fairshare import DispatchQueue, SearchAdmission, Work, take
from tunefarm.distributed.slots import queue_info


@pytest.fixture
def config(service_config):
    return service_config.with_(prefix=f"fair-{uuid.uuid4().hex[:8]}")


def job(i: int, tenant: str, priority: int = 5, created: float | None = None) -> dict:
    return {"id": f"{tenant}-{i}", "tenant": tenant, "priority": priority,
            "created": created if created is not None else 1000.0 + i}  # fmt: skip


def test_a_tenant_with_one_job_is_not_starved_by_one_with_fifty(config):
    admission = SearchAdmission(config)
    for i in range(50):
        admission.add(job(i, "big"))
    admission.add(job(0, "small", created=5000.0))  # submitted last
    first_two = [admission.pick(), admission.pick()]
    assert first_two == ["big-0", "small-0"]
    # the small tenant has nothing more: the big one's jobs follow in order
    assert [admission.pick() for _ in range(3)] == ["big-1", "big-2", "big-3"]


def test_priority_orders_a_tenants_jobs_and_adding_twice_keeps_the_place(config):
    admission = SearchAdmission(config)
    admission.add(job(0, "t"))
    admission.add(job(1, "t", priority=9))
    admission.add(job(2, "t", priority=0))
    admission.add(job(0, "t", created=99999.0))  # a re-sent step: keeps its place
    assert [admission.pick() for _ in range(4)] == ["t-1", "t-0", "t-2", None]


def test_tenants_share_slots_by_running_jobs(config):
    admission = SearchAdmission(config)
    for tenant in ("a", "b", "c"):
        for i in range(4):
            admission.add(job(i, tenant))
    picks = [admission.pick() for _ in range(6)]
    per_tenant = {t: sum(p.startswith(t) for p in picks) for t in "abc"}
    assert per_tenant == {"a": 2, "b": 2, "c": 2}


def test_a_dead_slot_stops_counting_when_its_lease_is_gone(config):
    r = SearchAdmission(config).r
    admission = SearchAdmission(config, r, grace_s=0)  # picked jobs count only by lease
    for i in range(3):
        admission.add(job(i, "a"))
    admission.add(job(0, "b", created=2000.0))
    lease = config.key("job", "a-0", "lease")
    r.set(lease, "slot", px=60_000)
    assert admission.pick() == "a-0"
    assert admission.pick() == "b-0"  # a has one running (leased), b none
    r.delete(lease)  # a's slot died: its lease lapsed
    assert admission.pick() == "a-1"  # a runs nothing now


def test_queue_position_and_start_estimate(config):
    admission = SearchAdmission(config)
    for i in range(4):
        admission.add(job(i, "a"))
    admission.add(job(0, "b"))
    assert queue_info(config, {"id": "zzz", "tenant": "a"}) is None
    info = queue_info(config, job(2, "a"))
    assert info["tenant_ahead"] == 2 and info["ahead"] == 3 and info["position"] == 4
    assert info["estimated_start_s"] is None  # no job finished yet
    admission.r.lpush(config.key("search", "durations"), 10.0, 20.0)
    admission.pick()
    admission.pick()
    info = queue_info(config, job(3, "a"))
    assert info["running"] == 2 and info["ahead"] == 2  # a-1 and a-2; b has none left
    assert info["estimated_start_s"] == pytest.approx(30.0)  # 2 rounds of 2 slots x 15 s


def test_dispatch_is_round_robin_between_senders(config):
    queue = DispatchQueue(config, "build")
    for i in range(10):
        queue.push("job-a", {"ticket": f"a{i}", "args": [i]})
    for i in range(2):
        queue.push("job-b", {"ticket": f"b{i}", "args": [i]})
    assert queue.waiting() == 12
    order = [queue.pop()["ticket"] for _ in range(12)]
    assert queue.pop() is None
    assert order[:4] == ["a0", "b0", "a1", "b1"]
    assert order[4:] == [f"a{i}" for i in range(2, 10)]


def test_dispatch_drop_forgets_a_senders_batch_and_take_reads_both_forms(config):
    queue = DispatchQueue(config, "measure.k")
    queue.push("job-a", {"ticket": "t1", "args": [{"x": 1}, 2]})
    queue.push("job-b", {"ticket": "t2", "args": [3], "inbox": config.key("inbox", "b")})
    queue.push("job-c", {"ticket": "t3", "args": [4], "inbox": "other-stack:inbox:c"})
    queue.drop("job-a")
    work = take(queue, [])
    assert (work.ticket, work.args, work.inbox) == ("t2", [3], config.key("inbox", "b"))
    assert 0 <= work.waited_s < 5
    assert take(queue, []).inbox is None  # a key outside this stack is never written
    assert take(queue, []) is None
    assert take(queue, ["t9", 1, 2]) == Work("t9", [1, 2])


def test_a_new_sender_is_served_before_an_old_sender_finishes(config):
    queue = DispatchQueue(config, "build")
    for i in range(20):
        queue.push("old", {"ticket": f"o{i}", "args": []})
    for _ in range(5):
        queue.pop()
    queue.push("new", {"ticket": "n0", "args": []})
    nxt = [queue.pop()["ticket"] for _ in range(2)]
    assert "n0" in nxt
