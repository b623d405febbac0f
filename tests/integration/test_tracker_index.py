"""The tracker's per-key index on a real Redis: listings read the index, not the keyspace;
an agent whose heartbeats stopped drops out of it; unregistering removes it at once."""

from __future__ import annotations

import time
import uuid

import pytest

from tunefarm.distributed.tracker import Tracker


@pytest.fixture
def tracker(service_config):
    config = service_config.with_(prefix=f"trk-{uuid.uuid4().hex[:8]}", heartbeat_ttl_s=60.0)
    return Tracker(config)


def test_listings_by_key_come_from_the_index(tracker):
    infos = [tracker.register("a" if i % 4 else "b", "cpu") for i in range(200)]
    assert len(tracker.agents("a")) == 150 and len(tracker.agents("b")) == 50
    assert len(tracker.agents()) == 200 and tracker.keys() == ["a", "b"]
    tracker.unregister(infos[0])
    assert infos[0].agent_id not in {a.agent_id for a in tracker.agents("b")}
    rows = {r["key"]: r for r in tracker.summary()}
    assert rows["b"]["total"] == 49 and rows["a"]["free"] == 150


def test_an_agent_without_heartbeats_drops_out_and_its_key_shows_zero(tracker):
    short = Tracker(tracker.config.with_(heartbeat_ttl_s=0.3))
    short.register("gone", "cpu")
    tracker.register("stays", "cpu")
    assert len(tracker.agents("gone")) == 1
    time.sleep(0.5)
    assert tracker.agents("gone") == []
    assert tracker.r.zcard(tracker.config.key("agents", "gone")) == 0  # pruned as met
    assert tracker.known_keys() == ["gone", "stays"]  # the alert's "no agents" needs it


def test_a_redis_that_lost_its_data_learns_agents_again_from_their_heartbeats(tracker):
    info = tracker.register("k", "cpu")
    prefix = tracker.config.key("")
    for name in tracker.r.scan_iter(match=prefix + "*"):
        tracker.r.delete(name)  # what a restart without persistence leaves: nothing
    assert tracker.agents() == []
    tracker.heartbeat(info)
    assert [a.agent_id for a in tracker.agents()] == [info.agent_id]
    assert tracker.targets() == {"k": {"cpu"}}
