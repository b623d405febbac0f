"""Remote work that survives dead workers and a lost broker: one ticket per unit of work (a
candidate's build, its measurement, a job's evaluation), with its claim and its result in
Redis, watched by the sender with deadlines.

Why not Celery's result backend and the broker's redelivery: a message taken by a worker
that died comes back only after the visibility timeout (minutes), and a Redis restart
without persistence loses queued messages and results for good, while the sender would
wait out its whole deadline. With tickets:
- the worker claims the ticket (a key with a short TTL, refreshed while it works), runs the
  work, and stores the result under the ticket with a done marker; checking the marker and
  claiming are one atomic step (a Lua script), so a ticket that is done or has a live claim
  is not run again, and a re-sent or redelivered message measures nothing twice, even after
  the sender has read and forgotten the result;
- the sender (`Waiter`) polls claims and results: a claim that lapsed without a result
  means its worker died, and the ticket is sent again at once (seconds: the claim TTL is
  the heartbeat TTL); a ticket never claimed while its queue is empty means the message was
  lost, and so does the disappearance of the batch's marker key (Redis lost its data): both
  are sent again; each ticket still has a deadline, so nothing waits for ever.

Results wake the sender at once: a worker that stores a result also pushes the ticket to
the sender's inbox (a Redis list named in the work's payload), on which the sender blocks
between its checks. So the sender reads results the moment they land and checks for dead
workers and lost messages only once a second, instead of polling every ticket ten times a
second (at 100 jobs, that polling was most of Redis's load).
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tunefarm.distributed.celery_app import TRANSIENT
from tunefarm.distributed.config import ServiceConfig
from tunefarm.distributed.tracker import queue_depth

log = logging.getLogger("tunefarm.tickets")

RESULT_TTL_S = 3600
INBOX_POLL_S = 1.0  # with an inbox: how often the sender checks for dead and lost work
DONE_TTL_S = 86_400  # the done marker outlives the result the sender reads and forgets
LOST_GRACE_S = 3.0  # unclaimed with an empty queue this long: the message is lost
MAX_SENDS = 4  # a ticket lost more often than this fails with the reason
STORE_RETRY_S = 60.0  # how long a worker keeps trying to store a result while Redis is down


class Stopped(Exception):
    """The sender's `should_stop` said so (the job was cancelled)."""


class Tickets:
    """Claims and results of tickets, under the stack's prefix."""

    _RELEASE = (
        "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) "
        "else return 0 end"
    )
    # Extend our key; take it again if it is gone (Redis restarted, or an outage outlasted
    # the TTL) rather than leave the job or ticket looking abandoned while we still run.
    _REFRESH = (
        "local v = redis.call('get', KEYS[1]) "
        "if v == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end "
        "if not v then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end "
        "return 0"
    )

    # Check and claim in one step: with two round trips (result? then SET NX), a duplicate
    # delivery checking just before another worker stored its result and released its claim
    # would claim the ticket afterwards and run the work again.
    _CLAIM = (
        "if redis.call('exists', KEYS[2]) == 1 then return 'done' end "
        "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 'claimed' end "
        "return 'busy'"
    )

    def __init__(self, config: ServiceConfig, client=None) -> None:
        self.config = config
        self.r = client if client is not None else config.redis()
        self.ttl_ms = max(1000, int(config.heartbeat_ttl_s * 1000))

    def claim_key(self, ticket: str) -> str:
        return self.config.key("ticket", ticket, "claim")

    def result_key(self, ticket: str) -> str:
        return self.config.key("ticket", ticket, "result")

    def done_key(self, ticket: str) -> str:
        """Set with the result; unlike it, never deleted by the sender (`forget`)."""
        return self.config.key("ticket", ticket, "done")

    def claim(self, ticket: str, owner: str) -> str:
        """'claimed' (ours now), 'done' (a result was stored) or 'busy' (another worker's
        live claim), in one atomic step."""
        keys = (self.claim_key(ticket), self.done_key(ticket))
        return self.r.eval(self._CLAIM, 2, *keys, owner, self.ttl_ms)

    # -- the worker's side ------------------------------------------------------------------
    def run(
        self, ticket: str, owner: str, work: Callable[[], Any], inbox: str | None = None
    ) -> str:
        """Run `work` for `ticket` unless it has a result or a live claim; store what it
        returns (or the exception it raised, as the error) for the sender, and wake the
        sender through its `inbox` when it has one. Returns what happened, for the log."""
        claimed = self.claim(ticket, owner)
        if claimed == "done":
            return "duplicate: already done"
        if claimed != "claimed":
            return "duplicate: another worker has it"
        stop = threading.Event()
        keeper = threading.Thread(target=self._keep, args=(ticket, owner, stop), daemon=True)
        keeper.start()
        try:
            try:
                reply = {"ok": work()}
            except TRANSIENT as exc:  # Redis went away under the work: not the work's fault
                log.warning("ticket %s: Redis unavailable during the work (%s)", ticket, exc)
                return "abandoned: the claim lapses and the sender sends it again"
            except Exception as exc:  # the work's own failure is the sender's answer
                reply = {"error": f"{type(exc).__name__}: {exc}"}
        finally:
            stop.set()
            keeper.join(timeout=15)  # a refresh in flight must not re-take the claim after us
        self._store(ticket, owner, reply, inbox)
        return "done"

    def _keep(self, ticket: str, owner: str, stop: threading.Event) -> None:
        while not stop.wait(self.ttl_ms / 3000):
            try:
                self.r.eval(self._REFRESH, 1, self.claim_key(ticket), owner, self.ttl_ms)
            except Exception:  # a Redis blip: the next refresh tries again
                pass

    def _store(
        self, ticket: str, owner: str, reply: dict[str, Any], inbox: str | None = None
    ) -> None:
        deadline = time.monotonic() + STORE_RETRY_S
        while True:
            try:
                pipe = self.r.pipeline()
                pipe.set(self.result_key(ticket), json.dumps(reply), ex=RESULT_TTL_S)
                pipe.set(self.done_key(ticket), "1", ex=DONE_TTL_S)
                pipe.eval(self._RELEASE, 1, self.claim_key(ticket), owner)
                if inbox:  # wake the sender (its key carries the stack's prefix: checked)
                    pipe.rpush(inbox, ticket)
                    pipe.expire(inbox, RESULT_TTL_S)
                pipe.execute()
                return
            except TRANSIENT as exc:
                if time.monotonic() > deadline:
                    log.warning("ticket %s: result not stored, Redis unavailable: %s", ticket, exc)
                    return  # the claim lapses and the sender sends the ticket again
                time.sleep(1.0)

    # -- the sender's side ------------------------------------------------------------------
    def read(self, tickets: list[str]) -> list[tuple[str | None, bool]]:
        """Per ticket: (its result as JSON text or None, whether a claim is alive)."""
        pipe = self.r.pipeline()  # MULTI: one snapshot, so a result is never missed
        for t in tickets:
            pipe.get(self.result_key(t))
            pipe.exists(self.claim_key(t))
        values = pipe.execute()
        return [(values[2 * i], bool(values[2 * i + 1])) for i in range(len(tickets))]

    def forget(self, tickets: list[str]) -> None:
        if tickets:
            self.r.delete(*(self.result_key(t) for t in tickets))


def new_ticket() -> str:
    return uuid.uuid4().hex


@dataclass
class Pending:
    """One ticket the sender waits for. `send` (re)sends its message; `what` names the work
    for messages ("build", "measurement", "evaluation")."""

    ticket: str
    queue: str
    send: Callable[[], None]
    what: str
    sends: int = 0
    claimed: bool = False
    sent_at: float = 0.0
    idle_since: float | None = None  # unclaimed with an empty queue since
    reply: Any = None
    done: bool = False

    def dispatch(self) -> None:
        """Send the message now and count it (raises what `send` raises): a build sent
        ahead of the wait for it (`remote.RemoteBuildAhead`), which `Waiter.wait` then
        watches without sending again."""
        self.send()
        self.sends += 1
        self.claimed, self.idle_since, self.sent_at = False, None, time.monotonic()


@dataclass
class Waiter:
    """Waits for tickets, re-sending those whose worker died or whose message was lost.

    on_result(pending, reply) may return new Pending items to wait for too (a build's
    result starts its measurement); on_wait(reason) is told when a ticket had to be sent
    again, so the job can say so; should_stop() raising or returning True stops the wait
    (raising `Stopped`)."""

    tickets: Tickets
    broker: Any
    on_result: Callable[[Pending, Any], list[Pending]] | None = None
    on_wait: Callable[[str], None] | None = None
    should_stop: Callable[[], bool] | None = None
    poll_s: float = 0.1
    inboxes: tuple[str, ...] = ()  # lists workers push finished tickets to (see module doc)
    _marker: str = field(default="", init=False)

    def wait(self, items: list[Pending], timeout_s: float) -> dict[str, Any]:
        """ticket -> reply (the work's return value) or an Exception (TimeoutError, or the
        work's error as RuntimeError)."""
        pending = {p.ticket: p for p in items}
        end = time.monotonic() + timeout_s
        self._mark(timeout_s)
        for p in items:
            if p.sends == 0:  # one sent ahead (`Pending.dispatch`) is watched as it stands
                self._send(p, None)
        try:
            while any(not p.done for p in pending.values()):
                if self.should_stop is not None and self.should_stop():
                    raise Stopped()
                start = time.monotonic()
                try:
                    self._poll(pending)
                except TRANSIENT as exc:  # Redis away: wait, and do not count the outage
                    log.warning("waiting for tickets: Redis unavailable (%s); retrying", exc)
                    time.sleep(1.0)
                    end += time.monotonic() - start
                    continue
                if all(p.done for p in pending.values()):
                    break  # answered: no pause after the last result
                if time.monotonic() > end:
                    self._expire(pending, timeout_s)
                    break
                self._pause()
        finally:
            self._unmark()
        self._forget(list(pending))
        if self.inboxes:
            try:
                self.tickets.r.delete(*self.inboxes)
            except TRANSIENT:
                pass  # they expire
        return {t: p.reply for t, p in pending.items()}

    def _pause(self) -> None:
        """Until the next check: `poll_s`, or with inboxes until a result lands (at most
        INBOX_POLL_S); every ticket the inboxes hold is taken, since one check reads all."""
        if not self.inboxes:
            time.sleep(self.poll_s)
            return
        try:
            if self.tickets.r.blpop(list(self.inboxes), timeout=INBOX_POLL_S):
                pipe = self.tickets.r.pipeline()
                for inbox in self.inboxes:
                    pipe.delete(inbox)
                pipe.execute()
        except TRANSIENT:  # the next check says what to do
            time.sleep(self.poll_s)

    def _poll(self, pending: dict[str, Pending]) -> None:
        open_ = [p for p in pending.values() if not p.done]
        states = self.tickets.read([p.ticket for p in open_])
        lost_data = not self.tickets.r.exists(self._marker)
        if lost_data:
            self._mark(RESULT_TTL_S)
        depths: dict[str, int] = {}
        now = time.monotonic()
        for p, (raw, claimed) in zip(open_, states, strict=True):
            if raw is not None:
                self._finish(p, json.loads(raw), pending)
            elif claimed:
                p.claimed, p.idle_since = True, None
            elif p.sends == 0:  # the first send failed (broker down): try again
                self._send(p, None)
            elif p.claimed:  # claimed, no claim now and no result: the worker died
                self._send(p, f"the worker running a {p.what} stopped; it was sent again")
            elif lost_data:
                self._send(p, f"Redis lost its data; a {p.what} was sent again")
            else:
                if p.queue not in depths:
                    depths[p.queue] = queue_depth(self.broker, p.queue)
                if depths[p.queue] > 0:
                    p.idle_since = None
                elif p.idle_since is None:
                    p.idle_since = now
                elif now - p.idle_since > LOST_GRACE_S:
                    self._send(p, f"a {p.what} message was lost; it was sent again")

    def _finish(self, p: Pending, reply: dict[str, Any], pending: dict[str, Pending]) -> None:
        p.done = True
        p.reply = reply["ok"] if "ok" in reply else RuntimeError(reply.get("error", "failed"))
        if self.on_result is not None:
            for extra in self.on_result(p, p.reply) or ():
                pending[extra.ticket] = extra
                self._send(extra, None)

    def _send(self, p: Pending, reason: str | None) -> None:
        if p.sends >= MAX_SENDS:
            p.done, p.reply = True, RuntimeError(f"{p.what} lost {p.sends} times; giving up")
            return
        if reason is not None:
            log.warning("ticket %s: %s", p.ticket, reason)
            if self.on_wait is not None:
                self.on_wait(reason)
        try:
            p.dispatch()
        except Exception as exc:  # the broker is down: the next poll sends it again
            log.warning("ticket %s: could not send (%s); will retry", p.ticket, exc)
            p.claimed, p.idle_since = False, None

    def _expire(self, pending: dict[str, Pending], timeout_s: float) -> None:
        for p in pending.values():
            if not p.done:
                p.done = True
                p.reply = TimeoutError(f"no answer for a {p.what} within {timeout_s:.0f} s")

    def _mark(self, ttl_s: float) -> None:
        """A key whose disappearance tells that Redis lost its data under us."""
        self._marker = self._marker or self.tickets.config.key("ticket-batch", new_ticket())
        self.tickets.r.set(self._marker, "1", ex=max(60, int(ttl_s) + 60))

    def _unmark(self) -> None:
        try:
            self.tickets.r.delete(self._marker)
        except TRANSIENT:
            pass

    def _forget(self, tickets: list[str]) -> None:
        try:
            self.tickets.forget(tickets)
        except TRANSIENT:
            pass  # they expire
