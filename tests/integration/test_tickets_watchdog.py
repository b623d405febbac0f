"""Tickets, leases and the watchdog against a real Redis, with stand-in workers: a dead
worker's ticket is sent again within its claim TTL, a lost message within the grace period,
work runs once per ticket however often it is delivered; a job Redis lost is restored from
the artifact store, a job whose worker died gets its step again, and cancel needs no
worker."""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from tunefarm.distributed.jobs import JobStore
from tunefarm.distributed.tickets import Pending, Tickets, Waiter, new_ticket

pytestmark = pytest.mark.integration


@pytest.fixture
def config(service_config, tmp_path):
    prefix = f"tftick-{uuid.uuid4().hex[:8]}"
    return service_config.with_(prefix=prefix, heartbeat_ttl_s=1.0, artifacts=tmp_path)


def _waiter(config, **hooks) -> Waiter:
    return Waiter(Tickets(config), config.redis(), **hooks)


def test_work_runs_once_per_ticket(config):
    tickets, runs = Tickets(config), []
    ticket = uuid.uuid4().hex
    assert tickets.run(ticket, "a", lambda: runs.append(1) or {"x": 1}) == "done"
    assert tickets.run(ticket, "b", lambda: runs.append(2) or {"x": 2}).startswith("duplicate")
    assert runs == [1]
    assert tickets.read([ticket])[0][0] == '{"ok": {"x": 1}}'


def test_a_dead_workers_ticket_is_sent_again(config):
    tickets, said = Tickets(config), []
    sends = []

    def send():
        sends.append(time.monotonic())
        if len(sends) == 1:  # the first worker claims it and dies (no refresh, no result)
            tickets.r.set(tickets.claim_key(item.ticket), "dead", px=1000)
        else:
            threading.Thread(target=tickets.run, args=(item.ticket, "live", lambda: 42)).start()

    item = Pending(uuid.uuid4().hex, config.queue("nowhere"), send, "build")
    start = time.monotonic()
    replies = _waiter(config, on_wait=said.append).wait([item], 30)
    assert replies[item.ticket] == 42
    assert len(sends) == 2 and time.monotonic() - start < 5
    assert said and "stopped" in said[0]


def test_a_lost_message_is_sent_again(config):
    tickets, sends = Tickets(config), []

    def send():
        sends.append(1)
        if len(sends) > 1:  # the first message vanished (its queue is empty, nobody claims it)
            threading.Thread(target=tickets.run, args=(item.ticket, "w", lambda: "ok")).start()

    item = Pending(uuid.uuid4().hex, config.queue("empty"), send, "measurement")
    assert _waiter(config).wait([item], 30)[item.ticket] == "ok"
    assert len(sends) == 2


def test_a_ticket_that_never_answers_times_out(config):
    item = Pending(uuid.uuid4().hex, config.queue("q"), lambda: None, "build")
    tickets = Tickets(config)
    tickets.r.set(tickets.claim_key(item.ticket), "slow", px=60_000)  # claimed, never done
    reply = _waiter(config).wait([item], 1.5)[item.ticket]
    assert isinstance(reply, TimeoutError)


def test_a_job_redis_lost_is_restored_from_the_store(config):
    jobs = JobStore(config)
    doc = jobs.create({"model": "zoo:resnet-18", "trials": 4, "tenant": "t"})
    jobs.set_state(doc["id"], "converting")
    jobs.r.delete(jobs._doc_key(doc["id"]), jobs._index_key())  # what a restart loses
    back = jobs.get(doc["id"])
    assert back["state"] == "converting" and back["tenant"] == "t"
    assert "Redis lost" in back["waiting"]["reason"]
    assert doc["id"] in [d["id"] for d in jobs.list()]


class _App:
    """Records what the watchdog sends."""

    def __init__(self, config):
        self.tunefarm_config, self.sent = config, []

    def send_task(self, name, args, queue, **kw):
        self.sent.append((name, args, queue))


def test_the_watchdog_resends_the_step_of_a_job_whose_worker_died(config):
    from tunefarm.distributed.watchdog import Watchdog

    jobs, app = JobStore(config), _App(config)
    job_id = jobs.create({"model": "zoo:resnet-18", "trials": 4})["id"]
    jobs.set_state(job_id, "extracting", waiting_for=None)  # started, then its worker died
    dog = Watchdog(config, app)
    dog.grace_s = 0.2
    dog.sweep()  # first sight: it may be a worker re-taking its lease
    time.sleep(0.3)
    acted = dog.sweep()
    assert [j for j, _ in acted] == [job_id]
    assert app.sent == [("tunefarm.extract", [job_id], config.queue("extract"))]
    doc = jobs.get(job_id)
    assert "stopped" in doc["waiting"]["reason"] and doc["waiting_for"]["step"] == "extract"


def test_the_watchdog_leaves_leased_and_queued_jobs_alone(config):
    from tunefarm.distributed.watchdog import Watchdog

    jobs, app = JobStore(config), _App(config)
    running = jobs.create({"model": "m", "trials": 4})["id"]
    jobs.set_state(running, "tuning", waiting_for=None)
    jobs.r.set(jobs.lease_key(running), "alive", px=60_000)
    queued = jobs.create({"model": "m", "trials": 4})["id"]  # waits for convert, just sent
    dog = Watchdog(config, app)
    dog.sweep()
    time.sleep(dog.grace_s / 2)
    dog.sweep()
    assert app.sent == []
    assert jobs.get(queued).get("waiting") is None


def test_cancel_needs_no_worker(config):
    jobs = JobStore(config)
    job_id = jobs.create({"model": "m", "trials": 4})["id"]
    jobs.set_state(job_id, "compiling", waiting_for=None)
    assert jobs.request_cancel(job_id)["state"] == "cancelled"


def test_serve_stack_passes_its_host_and_says_whether_redis_persists(tmp_path):
    import shutil

    from stack_env import free_port
    from tunefarm_services.stack import LocalStack, RedisServer, StackSpec, persistence_warning

    plan = LocalStack(StackSpec(host="127.0.0.2"), {}, tmp_path).plan()
    assert plan["gateway"][plan["gateway"].index("--host") + 1] == "127.0.0.2"
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server")
    for appendonly in (True, False):
        server = RedisServer(tmp_path / f"r{appendonly}", free_port(), appendonly).start()
        try:
            import redis

            warning = persistence_warning(redis.Redis.from_url(server.url, decode_responses=True))
        finally:
            server.stop()
        assert (warning is None) == appendonly
        assert appendonly or "will not survive a restart" in warning


def test_a_result_wakes_the_sender_through_its_inbox(config):
    """With an inbox the sender checks once a second, yet sees a result at once."""
    tickets = Tickets(config)
    inbox = config.key("inbox", new_ticket())
    item = Pending(new_ticket(), "tftest.none", lambda: None, "build")

    def worker() -> None:
        time.sleep(0.3)
        tickets.run(item.ticket, "w", lambda: "ok", inbox=inbox)

    threading.Thread(target=worker).start()
    waiter = Waiter(tickets, config.redis(), inboxes=(inbox,))
    start = time.monotonic()
    assert waiter.wait([item], 30)[item.ticket] == "ok"
    assert time.monotonic() - start < 0.9  # woken, not the next once-a-second check
    assert not tickets.r.exists(inbox)  # cleaned up


def test_deliveries_interleaved_with_a_store_measure_once(config):
    """A duplicate delivery landing while the work runs, one landing just after the result
    was stored and the claim released, and one after the sender read and forgot the result:
    none runs the work again (issue 25: the check and the claim were two round trips)."""
    tickets, runs = Tickets(config), []
    ticket = uuid.uuid4().hex
    outcomes = []

    def work():
        runs.append("a")
        # a second delivery of the same ticket while the first runs
        outcomes.append(tickets.run(ticket, "b", lambda: runs.append("b")))
        return {"x": 1}

    assert tickets.run(ticket, "a", work) == "done"
    outcomes.append(tickets.run(ticket, "c", lambda: runs.append("c")))  # after the store
    assert tickets.read([ticket])[0][0] == '{"ok": {"x": 1}}'
    tickets.forget([ticket])  # the sender took the result
    outcomes.append(tickets.run(ticket, "d", lambda: runs.append("d")))
    assert runs == ["a"], runs
    assert outcomes[0] == "duplicate: another worker has it"
    assert outcomes[1:] == ["duplicate: already done"] * 2


def test_the_claim_is_one_atomic_script(config):
    """The claim is decided inside Redis: a stored result's marker refuses it even when the
    claim key is free, and a live claim refuses it even without a result."""
    tickets = Tickets(config)
    ticket = uuid.uuid4().hex
    assert tickets.claim(ticket, "a") == "claimed"
    assert tickets.claim(ticket, "b") == "busy"
    tickets.r.set(tickets.done_key(ticket), "1")
    tickets.r.delete(tickets.claim_key(ticket))
    assert tickets.claim(ticket, "b") == "done"


def test_an_extract_step_that_fails_the_same_way_every_time_fails_the_job(config):
    """A step error that would recur on every delivery (here an unreadable graph file; in
    the field graph_pack refusing a node) ends the job with the error: before, it escaped
    the step, the lease lapsed and the watchdog sent the step again every few seconds."""
    from tunefarm.distributed import pipeline
    from tunefarm.distributed.artifacts import GRAPH_FILE, ArtifactStore

    jobs, app = JobStore(config), _App(config)
    job_id = jobs.create({"model": "zoo:resnet-18", "trials": 4})["id"]
    jobs.set_state(job_id, "converting", waiting_for=None)
    path = ArtifactStore(config.artifacts).job_file(job_id, GRAPH_FILE)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not a graph")
    assert pipeline.extract(config, app, job_id) == "failed"
    doc = jobs.get(job_id)
    assert doc["state"] == "failed" and "task extraction failed" in doc["error"]
    assert app.sent == []  # no search step sent on


def test_convert_and_extract_each_hand_the_job_on(config):
    """A step that succeeds marks the job as waiting for the next step's message and sends
    it (convert -> extract -> search); a step delivered again once the job moved on is
    skipped and sends nothing."""
    from tiny_model import tiny_model_bytes

    from tunefarm.distributed import pipeline
    from tunefarm.distributed.artifacts import MODEL_FILE, ArtifactStore

    jobs, app = JobStore(config), _App(config)
    job_id = jobs.create({"model": "upload:tiny.onnx", "target": "cpu", "trials": 4})["id"]
    path = ArtifactStore(config.artifacts).job_file(job_id, MODEL_FILE)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(tiny_model_bytes())
    assert pipeline.convert(config, app, job_id) == "converted"
    assert app.sent == [("tunefarm.extract", [job_id], config.queue("extract"))]
    assert jobs.get(job_id)["waiting_for"]["step"] == "extract"
    outcome = pipeline.extract(config, app, job_id)
    assert outcome.endswith(" tasks"), (outcome, jobs.get(job_id).get("error"))
    assert app.sent[1:] == [("tunefarm.search", [job_id], config.queue("search"))]
    doc = jobs.get(job_id)
    assert doc["state"] == "extracting" and doc["waiting_for"]["step"] == "search"
    assert pipeline.convert(config, app, job_id) == "skipped: job is extracting"
    assert len(app.sent) == 2
