"""Fair sharing of the farm between jobs and tenants, in Redis (one Lua script per decision,
so every worker of a stack sees one order without a coordinator).

Two places need it, because Celery queues are first in, first out:

- **Search slots.** A tenant that queued 50 jobs would have every search slot before a
  tenant with one job got any. So the `search` messages are wake-ups: each job waiting for
  a slot is in `search:ready` (a sorted set per tenant, by priority then age), and the slot
  that takes *any* search message runs the job `SearchAdmission.pick` chooses: the head of
  the tenant with the fewest jobs running now (ties: higher priority, then older). One
  message is sent per waiting job, so the count of messages and of waiting jobs stay equal
  and every job gets a slot; a lost or extra message is harmless (the watchdog re-sends a
  job's step whose message is in no queue; a message with nothing waiting does nothing).
- **Build and measure queues.** One job's batch of 64 candidates would sit in front of every
  other job's. So candidates wait in a list per sender (one job's batch) and the message is
  again only a wake-up: the worker that takes it pops from the sender served longest ago
  (`DispatchQueue.pop`), round robin between the jobs sharing a queue.

Running jobs are counted from their leases (`job:<id>:lease`), so a dead search slot stops
counting against its tenant as soon as its lease lapses, with no counter to repair.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from tunefarm.distributed.config import ServiceConfig

PRIORITY_MIN, PRIORITY_MAX, PRIORITY_DEFAULT = 0, 9, 5
PICK_GRACE_S = 30  # a picked job counts as running this long before its lease must exist
_AGE_SPAN = 1e11  # seconds: the score of one priority level is beyond any job's age

# KEYS: tenants set, running hash (job -> "tenant|since"). ARGV: ready-zset prefix, lease-key
# prefix, lease suffix, grace seconds (a job picked this recently counts as running before
# its slot takes the lease). Returns {job, tenant} or false.
_PICK = """
local now = tonumber(redis.call('time')[1])
local running = {}
local all = redis.call('hgetall', KEYS[2])
for i = 1, #all, 2 do
  local job, sep = all[i], string.find(all[i + 1], '|', 1, true)
  local tenant = string.sub(all[i + 1], 1, sep - 1)
  local since = tonumber(string.sub(all[i + 1], sep + 1))
  if redis.call('exists', ARGV[2] .. job .. ARGV[3]) == 1 or now - since < tonumber(ARGV[4]) then
    running[tenant] = (running[tenant] or 0) + 1
  else
    redis.call('hdel', KEYS[2], job)
  end
end
local best, best_tenant, best_n, best_score = nil, nil, nil, nil
for _, tenant in ipairs(redis.call('smembers', KEYS[1])) do
  local head = redis.call('zrange', ARGV[1] .. tenant, 0, 0, 'WITHSCORES')
  if #head == 0 then
    redis.call('srem', KEYS[1], tenant)
  else
    local n, score = running[tenant] or 0, tonumber(head[2])
    if best == nil or n < best_n or (n == best_n and score < best_score) then
      best, best_tenant, best_n, best_score = head[1], tenant, n, score
    end
  end
end
if best == nil then return false end
redis.call('zrem', ARGV[1] .. best_tenant, best)
redis.call('hset', KEYS[2], best, best_tenant .. '|' .. now)
return {best, best_tenant}
"""


def priority_score(priority: int, created: float) -> float:
    """Lower runs sooner: higher priority first, then older."""
    return (PRIORITY_MAX - int(priority)) * _AGE_SPAN + float(created)


class SearchAdmission:
    """Which waiting job the next free search slot runs."""

    def __init__(self, config: ServiceConfig, client=None, grace_s: float = PICK_GRACE_S):
        self.config, self.grace_s = config, grace_s
        self.r = client if client is not None else config.redis()
        self._pick = self.r.register_script(_PICK)

    def _ready(self, tenant: str) -> str:
        return self.config.key("search", "ready", tenant)

    def add(self, doc: dict[str, Any]) -> None:
        """The job waits for a slot (idempotent: a job already waiting keeps its place)."""
        tenant = doc.get("tenant") or "default"
        score = priority_score(doc.get("priority", PRIORITY_DEFAULT), doc.get("created", 0))
        pipe = self.r.pipeline()
        pipe.zadd(self._ready(tenant), {doc["id"]: score}, nx=True)
        pipe.sadd(self.config.key("search", "tenants"), tenant)
        pipe.execute()

    def remove(self, doc: dict[str, Any]) -> None:
        self.r.zrem(self._ready(doc.get("tenant") or "default"), doc["id"])

    def pick(self) -> str | None:
        """Take the fairest waiting job off the list and count it as running (until its
        lease lapses); None when no job waits."""
        reply = self._pick(
            keys=[self.config.key("search", "tenants"), self.config.key("search", "running")],
            args=[self._ready(""), self.config.key("job", ""), ":lease", self.grace_s],
        )
        return reply[0] if reply else None

    def running(self, job_id: str, tenant: str) -> None:
        """Count a job a slot runs without having picked it (a re-sent step)."""
        self.r.hset(self.config.key("search", "running"), job_id, f"{tenant}|{int(time.time())}")

    def finished(self, job_id: str) -> None:
        self.r.hdel(self.config.key("search", "running"), job_id)

    def position(self, doc: dict[str, Any]) -> dict[str, Any] | None:
        """Where a waiting job stands: {ahead, running, tenant_ahead}, or None when it waits
        for no slot. `ahead` counts the jobs `pick` would run before it if no job arrived
        (an upper bound: the fair order interleaves tenants)."""
        tenant = doc.get("tenant") or "default"
        mine = self.r.zrank(self._ready(tenant), doc["id"])
        if mine is None:
            return None
        tenants = self.r.smembers(self.config.key("search", "tenants"))
        ahead = mine
        for other in tenants:
            if other != tenant:  # round robin between tenants: at most `mine + 1` of theirs
                ahead += min(self.r.zcard(self._ready(other)), mine + 1)
        running = self.r.hlen(self.config.key("search", "running"))
        return {"ahead": int(ahead), "tenant_ahead": int(mine), "running": int(running)}


# KEYS: senders zset, serial counter. ARGV: list-key prefix. Returns a payload or false.
_POP = """
for _, sender in ipairs(redis.call('zrange', KEYS[1], 0, -1)) do
  local item = redis.call('lpop', ARGV[1] .. sender)
  if item then
    if redis.call('llen', ARGV[1] .. sender) == 0 then
      redis.call('zrem', KEYS[1], sender)
    else
      redis.call('zadd', KEYS[1], redis.call('incr', KEYS[2]), sender)
    end
    return item
  end
  redis.call('zrem', KEYS[1], sender)
end
return false
"""
# KEYS: senders zset, serial counter, the sender's list. ARGV: sender, payload, ttl seconds.
_PUSH = """
redis.call('rpush', KEYS[3], ARGV[2])
redis.call('expire', KEYS[3], ARGV[3])
local n = tonumber(redis.call('get', KEYS[2]) or '0')
redis.call('zadd', KEYS[1], 'NX', n, ARGV[1])
return 1
"""


class DispatchQueue:
    """Round robin between senders on one Celery queue: what a wake-up message runs."""

    def __init__(self, config: ServiceConfig, queue: str, client=None) -> None:
        self.config, self.queue = config, queue
        self.r = client if client is not None else config.redis()
        self._push, self._pop = self.r.register_script(_PUSH), self.r.register_script(_POP)

    def _keys(self) -> tuple[str, str, str]:
        return (
            self.config.key("dispatch", self.queue, "senders"),
            self.config.key("dispatch", self.queue, "serial"),
            self.config.key("dispatch", self.queue, "items", ""),
        )

    def push(self, sender: str, payload: dict[str, Any], ttl_s: float = 3600) -> None:
        senders, serial, items = self._keys()
        body = json.dumps({**payload, "queued": time.time()})
        self._push(keys=[senders, serial, items + sender], args=[sender, body, int(ttl_s) + 1])

    def pop(self) -> dict[str, Any] | None:
        """The next payload, from the sender served longest ago; None when none waits."""
        senders, serial, items = self._keys()
        raw = self._pop(keys=[senders, serial], args=[items])
        return json.loads(raw) if raw else None

    def drop(self, sender: str) -> None:
        """Forget what a sender still has queued (its batch ended: answered or cancelled)."""
        senders, _, items = self._keys()
        pipe = self.r.pipeline()
        pipe.delete(items + sender)
        pipe.zrem(senders, sender)
        pipe.execute()

    def waiting(self) -> int:
        """Payloads queued, all senders."""
        senders, _, items = self._keys()
        names = self.r.zrange(senders, 0, -1)
        pipe = self.r.pipeline(transaction=False)
        for name in names:
            pipe.llen(items + name)
        return int(sum(pipe.execute())) if names else 0


@dataclass(frozen=True)
class Work:
    """One unit of work a message stood for: its ticket, the task's arguments, how long it
    waited since it was queued, and the sender's inbox to wake (None: the sender polls)."""

    ticket: str
    args: list
    waited_s: float = 0.0
    inbox: str | None = None


def take(dispatch: DispatchQueue, message_args: tuple | list) -> Work | None:
    """What a build or measure message stands for. A wake-up (no args) takes the fair pick
    of `dispatch`, None when nothing waits (its candidate went with an earlier wake-up, or
    its batch ended); a message that carries its ticket and args (a sender from before fair
    dispatch) is that work."""
    if message_args:
        return Work(str(message_args[0]), list(message_args[1:]))
    payload = dispatch.pop()
    if payload is None:
        return None
    inbox = payload.get("inbox")
    if inbox is not None and not inbox.startswith(dispatch.config.key("inbox", "")):
        inbox = None  # only this stack's inboxes: a payload names no other key to write
    waited = max(0.0, time.time() - payload["queued"])
    return Work(payload["ticket"], payload["args"], waited, inbox)
