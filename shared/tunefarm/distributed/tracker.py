"""The device tracker (TVM's RPC tracker, on Redis): agents register their key, target and
host under a key with a TTL and refresh it with heartbeats; an agent that stops
heartbeating vanishes within the TTL. `summary()` gives `query_rpc_tracker`'s table:
key / total / free / pending, where pending is the length of the key's measure queue.

Readers find agents through an index, not a scan of the keyspace: `agents:<key>` is a sorted
set of agent ids scored by when their registration expires, written with every heartbeat,
and `device-keys` the set of keys ever used. A listing is one ZRANGEBYSCORE and one MGET per
key (at 1,000 agents, a SCAN of every key and a GET per agent took 0.7 s, and every job
submission lists agents to check its target).
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any

from tunefarm.distributed.config import ServiceConfig

MEASURE_QUEUE_PREFIX = "measure."
_PRIORITY_SEP = "\x06\x16"  # kombu's Redis transport: queue + sep + priority
_PRIORITY_STEPS = (0, 3, 6, 9)


def measure_queue(device_key: str, prefix: str) -> str:
    """The queue of a device key's agents, under the stack's prefix (`tunefarm.measure.KEY`).
    `prefix` is `ServiceConfig.prefix`: required, so no caller can miss the stack's queues."""
    return f"{prefix}.{MEASURE_QUEUE_PREFIX}{device_key}"


def valid_device_key(key: str) -> bool:
    return bool(key) and len(key) <= 64 and all(c.isalnum() or c in "-_." for c in key)


@dataclass
class AgentInfo:
    """One registered agent, as the tracker lists it."""

    agent_id: str
    key: str
    target: str
    host: str
    pid: int
    started: float
    last_heartbeat: float
    state: str = "free"  # free | busy
    measured: int = 0
    device: dict[str, Any] = field(default_factory=dict)  # e.g. GPU name, memory, driver

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Tracker:
    def __init__(self, config: ServiceConfig, client=None, broker=None) -> None:
        import redis

        self.config = config
        self.r = client if client is not None else config.redis()
        self.broker = broker or redis.Redis.from_url(config.broker_url, decode_responses=True)

    def _agent_key(self, key: str, agent_id: str) -> str:
        return self.config.key("agent", key, agent_id)

    # -- the agent's side ---------------------------------------------------------------------
    def register(
        self,
        key: str,
        target: str,
        agent_id: str | None = None,
        device: dict[str, Any] | None = None,
    ) -> AgentInfo:
        """Register an agent; `device` is what its backend reports about the device it
        measures on (a GPU's name, memory and driver), shown by `tunefarm devices --agents`."""
        if not valid_device_key(key):
            raise ValueError(
                f"device key {key!r}: use 1-64 letters, digits, '-', '_' or '.' characters"
            )
        now = time.time()
        info = AgentInfo(
            agent_id or uuid.uuid4().hex[:12],
            key,
            target,
            socket.gethostname(),
            os.getpid(),
            now,
            now,
            device=dict(device or {}),
        )
        self._write(info)
        return info

    def known_keys(self) -> list[str]:
        """Every device key an agent ever registered under (those with none now included)."""
        return sorted(self.r.smembers(self.config.key("device-keys")))

    def heartbeat(self, info: AgentInfo) -> None:
        info.last_heartbeat = time.time()
        self._write(info)

    def _index(self, key: str) -> str:
        return self.config.key("agents", key)

    def _write(self, info: AgentInfo) -> None:
        ttl_ms = int(self.config.heartbeat_ttl_s * 1000)
        pipe = self.r.pipeline(transaction=False)
        pipe.set(self._agent_key(info.key, info.agent_id), json.dumps(info.to_json()), px=ttl_ms)
        pipe.zadd(self._index(info.key), {info.agent_id: time.time() + ttl_ms / 1000})
        # every beat, not only at registration: a Redis that lost its data learns the key
        # again from the next heartbeat (listings, and the alert on keys that lost all agents)
        pipe.sadd(self.config.key("device-keys"), info.key)
        pipe.execute()

    def unregister(self, info: AgentInfo) -> None:
        pipe = self.r.pipeline(transaction=False)
        pipe.delete(self._agent_key(info.key, info.agent_id))
        pipe.zrem(self._index(info.key), info.agent_id)
        pipe.execute()

    # -- the reader's side --------------------------------------------------------------------
    def agents(self, key: str | None = None) -> list[AgentInfo]:
        """Live agents, of one key or of all, from the index (expired entries are dropped
        from it as they are met)."""
        now, out = time.time(), []
        for k in [key] if key is not None else self.known_keys():
            pipe = self.r.pipeline(transaction=False)
            pipe.zremrangebyscore(self._index(k), "-inf", now)
            pipe.zrange(self._index(k), 0, -1)
            ids = pipe.execute()[1]
            if not ids:
                continue
            for raw in self.r.mget([self._agent_key(k, i) for i in ids]):
                if raw is not None:  # gone between the index and its key: unregistered
                    out.append(AgentInfo(**json.loads(raw)))
        return sorted(out, key=lambda a: (a.key, a.host, a.agent_id))

    def keys(self) -> list[str]:
        return sorted({a.key for a in self.agents()})

    def targets(self) -> dict[str, set[str]]:
        """Device key -> the targets its live agents serve (one, unless misconfigured)."""
        out: dict[str, set[str]] = {}
        for a in self.agents():
            out.setdefault(a.key, set()).add(a.target)
        return out

    def pending(self, device_key: str) -> int:
        return queue_depth(self.broker, measure_queue(device_key, self.config.prefix))

    def summary(self) -> list[dict[str, Any]]:
        """One row per device key: key, total, free, busy, pending."""
        rows: dict[str, dict[str, Any]] = {}
        for a in self.agents():
            row = rows.setdefault(a.key, {"key": a.key, "total": 0, "free": 0, "busy": 0})
            row["total"] += 1
            row["free" if a.state == "free" else "busy"] += 1
        for row in rows.values():
            row["pending"] = self.pending(row["key"])
        return [rows[k] for k in sorted(rows)]


def queue_depth(broker, queue: str) -> int:
    """Messages waiting in a Celery queue on the Redis broker (all priority lists)."""
    names = [queue if p == 0 else f"{queue}{_PRIORITY_SEP}{p}" for p in _PRIORITY_STEPS]
    pipe = broker.pipeline()
    for name in names:
        pipe.llen(name)
    return int(sum(pipe.execute()))


def format_summary(rows: list[dict[str, Any]]) -> str:
    """The table `query_rpc_tracker` prints."""
    lines = ["Queue Status", "-" * 40, f"{'key':<20}{'total':>6}{'free':>6}{'pending':>8}"]
    lines.append("-" * 40)
    for row in rows:
        lines.append(f"{row['key']:<20}{row['total']:>6}{row['free']:>6}{row['pending']:>8}")
    lines.append("-" * 40)
    return "\n".join(lines)


class Heartbeat:
    """A daemon thread that refreshes an agent's registration every TTL/3 seconds."""

    def __init__(self, tracker: Tracker, info: AgentInfo) -> None:
        self.tracker, self.info = tracker, info
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="tracker-heartbeat", daemon=True)

    def start(self) -> Heartbeat:
        self._thread.start()
        return self

    def _loop(self) -> None:
        period = max(0.2, self.tracker.config.heartbeat_ttl_s / 3)
        while not self._stop.wait(period):
            try:
                self.tracker.heartbeat(self.info)
            except Exception:  # Redis blip: the next beat tries again; the TTL gives slack
                pass

    def set_state(self, state: str) -> None:
        self.info.state = state
        if state == "free":
            self.info.measured += 1
        self.tracker.heartbeat(self.info)

    def stop(self) -> None:
        self._stop.set()
        self.tracker.unregister(self.info)
