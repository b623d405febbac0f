"""`Builder` and `Runner` backed by Celery queues: the tuners cannot tell them from the local
ones, so embedded and distributed tuning share every line of search code.

A batch fans out as one message per candidate (builds to `<prefix>.build`, measurements to
`<prefix>.measure.<device-key>`), so build workers and the agents of a key share a batch
between them. Each message carries a ticket (`tickets.py`): a candidate whose worker died,
or whose message Redis lost, is sent again within seconds (the claim TTL), never measured
twice, and one that gets no answer within the deadline becomes an error result (build or
run timeout), never a hang.

Jobs share those queues fairly (`fairshare.DispatchQueue`): a candidate waits in its
sender's list in Redis and the Celery message is a wake-up, so the worker that takes it runs
the candidate of the job served longest ago, not the oldest message's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from tunefarm.distributed.artifacts import ArtifactStore
from tunefarm.distributed.celery_app import BUILD, MEASURE
from tunefarm.distributed.fairshare import DispatchQueue
from tunefarm.distributed.tickets import Pending, Tickets, Waiter, new_ticket
from tunefarm.distributed.tracker import measure_queue
from tunefarm.measure.builder import Builder
from tunefarm.measure.errors import MeasureErrorNo
from tunefarm.measure.runner import Runner
from tunefarm.measure.types import BuildResult, MeasureInput, MeasureResult, MeasureSettings


def _deadline(app: Any, work_s: float) -> float:
    """How long to wait for a batch: the work itself, plus one visibility timeout of slack
    for a queue shared with other jobs (dead workers and lost messages are re-sent long
    before: see `tickets.Waiter`)."""
    return work_s + app.tunefarm_config.visibility_timeout_s + 30


class _Remote:
    """What the builder and the runner share: the app, its queues, the ticket store, and
    the job's hooks (on_wait: a ticket was re-sent; should_stop: the job was cancelled)."""

    def __init__(
        self,
        app: Any,
        on_wait: Callable[[str], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> None:
        self.app, self.on_wait, self.should_stop = app, on_wait, should_stop
        self.config = app.tunefarm_config
        self._tickets: Tickets | None = None
        self.sender = new_ticket()  # this job's list in each queue's fair dispatch
        self.inbox = self.config.key("inbox", self.sender)  # where workers say "done"
        self._dispatch: dict[str, DispatchQueue] = {}

    def waiter(self, on_result=None, inboxes: tuple[str, ...] | None = None) -> Waiter:
        """A waiter woken by this sender's inbox (or the given ones)."""
        if self._tickets is None:
            import redis

            self._tickets = Tickets(self.config)
            self._broker = redis.Redis.from_url(self.config.broker_url, decode_responses=True)
        inboxes = (self.inbox,) if inboxes is None else inboxes
        return Waiter(self._tickets, self._broker, on_result, self.on_wait, self.should_stop,
                      inboxes=inboxes)  # fmt: skip

    def pending(
        self, task: str, queue: str, args: list[Any], what: str, fair: bool = True
    ) -> Pending:
        """A ticket whose `send` queues the work: in this sender's fair-dispatch list plus a
        wake-up message (`fair`), or as the message itself (evaluations: one per job)."""
        ticket = new_ticket()

        def send() -> None:
            if fair:
                payload = {"ticket": ticket, "args": args, "inbox": self.inbox}
                self.dispatch(queue).push(self.sender, payload)
                self.app.send_task(task, args=[], queue=queue, ignore_result=True)
            else:
                self.app.send_task(task, args=[ticket, *args], queue=queue, ignore_result=True)

        return Pending(ticket, queue, send, what)

    def dispatch(self, queue: str) -> DispatchQueue:
        if queue not in self._dispatch:
            self._dispatch[queue] = DispatchQueue(self.config, queue)
        return self._dispatch[queue]

    def drop_queued(self) -> None:
        """Forget this sender's candidates still queued: the batch has its answers (or was
        cancelled), so a worker must not spend time on them."""
        for dispatch in self._dispatch.values():
            try:
                dispatch.drop(self.sender)
            except Exception:  # Redis away: the lists expire
                pass


class CeleryBuilder(Builder, _Remote):
    """Builds on the build farm. Kernels land in the artifact store; results carry
    store-relative paths."""

    def __init__(
        self, app: Any, timeout_s: float = 60.0, options: Sequence[str] = (), **hooks: Any
    ) -> None:
        _Remote.__init__(self, app, **hooks)
        self.timeout_s, self.options = float(timeout_s), tuple(options)

    def build(self, inputs: Sequence[MeasureInput]) -> list[BuildResult]:
        inputs = list(inputs)
        if not inputs:
            return []
        items = [self.build_pending(inp) for inp in inputs]
        try:
            replies = self.waiter().wait(items, _deadline(self.app, self.timeout_s * len(inputs)))
        finally:
            self.drop_queued()
        return [self.result(replies[p.ticket]) for p in items]

    def build_pending(self, inp: MeasureInput) -> Pending:
        args = [inp.to_json(), self.timeout_s, list(self.options)]
        return self.pending(BUILD, self.config.queue("build"), args, "build")

    @staticmethod
    def result(reply: Any) -> BuildResult:
        if isinstance(reply, TimeoutError):
            return BuildResult.failed(MeasureErrorNo.BUILD_TIMEOUT, str(reply))
        if isinstance(reply, Exception):
            msg = f"build worker failed: {reply}"
            return BuildResult.failed(MeasureErrorNo.BUILD_ERROR, msg)
        return BuildResult.from_json(reply)


class CeleryRunner(Runner, _Remote):
    """Measures on the agents registered under `device_key`, one candidate per message.
    propose_ahead: the agents' kernels run on a device, so the search may propose its next
    batch while this one is built and measured (`tune.tuner.proposes_ahead`)."""

    def __init__(
        self,
        app: Any,
        device_key: str,
        settings: MeasureSettings,
        propose_ahead: bool = False,
        **hooks: Any,
    ) -> None:
        _Remote.__init__(self, app, **hooks)
        self.device_key, self.settings = device_key, settings
        self.propose_ahead = bool(propose_ahead)
        self.queue = measure_queue(device_key, self.config.prefix)

    def run(
        self, inputs: Sequence[MeasureInput], builds: Sequence[BuildResult]
    ) -> list[MeasureResult]:
        if len(inputs) != len(builds):
            raise ValueError(f"{len(inputs)} inputs but {len(builds)} builds")
        results: list[MeasureResult | None] = [None] * len(inputs)
        items: dict[int, Pending] = {}
        for i, build in enumerate(builds):
            if build.ok:
                items[i] = self.measure_pending(inputs[i], build)
            else:  # nothing to measure: pass the build error through, as LocalRunner does
                results[i] = self._failed(build.error_no, build.error_msg)
        try:
            replies = self.waiter().wait(list(items.values()), self._wait(len(items)))
        finally:
            self.drop_queued()
        for i, p in items.items():
            results[i] = self._result(replies[p.ticket])
        return [r for r in results if r is not None]

    def measure_batch(
        self, inputs: Sequence[MeasureInput], builder: Builder
    ) -> list[MeasureResult]:
        """Build and measure candidate by candidate: each build's result sends its
        measurement at once, so an agent starts on the first kernel while the build farm
        still compiles the rest."""
        if not isinstance(builder, CeleryBuilder):
            return self.run(inputs, builder.build(inputs))
        inputs = list(inputs)
        return self.chain(inputs, builder, [builder.build_pending(inp) for inp in inputs])

    def build_ahead(self, builder: Builder) -> RemoteBuildAhead | None:
        """Builds sent to the farm as soon as a batch is proposed, measured when its turn
        comes (`tune.build_ahead.make`); None for a builder other than the farm's."""
        if not isinstance(builder, CeleryBuilder):
            return None
        return RemoteBuildAhead(self, builder)

    def chain(
        self,
        inputs: Sequence[MeasureInput],
        builder: CeleryBuilder,
        builds: list[Pending],
        drop_builds: bool = True,
    ) -> list[MeasureResult]:
        """`measure_batch` for build tickets made by `builder` (sent now, or already sent by
        `Pending.dispatch`): each build's result sends its measurement. drop_builds=False
        leaves `builder`'s other queued builds alone (the next batch's, sent ahead)."""
        index = {p.ticket: i for i, p in enumerate(builds)}
        final: dict[int, Any] = {}
        measures: dict[int, Pending] = {}

        def on_result(p: Pending, reply: Any) -> list[Pending]:
            if p.ticket not in index:
                return []
            i, build = index[p.ticket], CeleryBuilder.result(reply)
            if not build.ok:
                final[i] = self._failed(build.error_no, build.error_msg)
                return []
            measures[i] = self.measure_pending(inputs[i], build)
            return [measures[i]]

        wait = self._wait(len(inputs)) + builder.timeout_s * len(inputs)
        try:
            waiter = self.waiter(on_result, inboxes=(builder.inbox, self.inbox))
            replies = waiter.wait(builds, wait)
        finally:
            if drop_builds:
                builder.drop_queued()
            self.drop_queued()
        out = []
        for i, p in enumerate(builds):
            if i in final:
                out.append(final[i])
            elif i in measures:
                out.append(self._result(replies[measures[i].ticket]))
            else:  # the build itself timed out or was lost
                build = CeleryBuilder.result(replies[p.ticket])
                out.append(self._failed(build.error_no, build.error_msg))
        return out

    def measure_pending(self, inp: MeasureInput, build: BuildResult) -> Pending:
        args = [build.to_json(), inp.to_json(), self.settings.to_json()]
        return self.pending(MEASURE, self.queue, args, "measurement")

    def _wait(self, n: int) -> float:
        return _deadline(self.app, (self.settings.timeout_s + 5) * max(1, n))

    def _failed(self, error_no: MeasureErrorNo, msg: str) -> MeasureResult:
        return MeasureResult((), error_no, msg, 0.0, time.time(), self.settings)

    def _result(self, reply: Any) -> MeasureResult:
        if isinstance(reply, TimeoutError):
            return self._failed(MeasureErrorNo.RUN_TIMEOUT, str(reply))
        if isinstance(reply, Exception):
            return self._failed(MeasureErrorNo.RUNTIME_ERROR, f"agent failed: {reply}")
        return MeasureResult.from_json(reply)


class RemoteBuildAhead:
    """The services' builds ahead of measurement (`tune.build_ahead`): `submit(parts)` sends
    each part's builds to the build farm at once (from the proposing thread), so the farm
    builds batch k+1 while the agents measure batch k; `measure(parts)` then waits for those
    builds and sends each measurement as its build ends (`CeleryRunner.chain`). The builds
    go out under a sender of their own: a batch's end (or a recheck's) drops its sender's
    queued candidates, which must not take the next batch's builds with them; being the
    job's only sender of builds but for rechecks, it keeps the job's fair share."""

    def __init__(self, runner: CeleryRunner, builder: CeleryBuilder) -> None:
        self.runner = runner
        self.builder = CeleryBuilder(
            builder.app, builder.timeout_s, builder.options,
            on_wait=builder.on_wait, should_stop=builder.should_stop,
        )  # fmt: skip

    def submit(self, parts: Sequence[Any]) -> None:
        """Send the builds of every part that has none yet; returns once they are queued. A
        send that fails (the broker away) is sent again by the wait (`Waiter.wait`)."""
        for part in parts:
            if part.builds is not None:
                continue
            part.builds = [self.builder.build_pending(inp) for inp in part.inputs]
            for pending in part.builds:
                try:
                    pending.dispatch()
                except Exception:  # counted as unsent: the wait sends it
                    pass

    def measure(self, parts: Sequence[Any]) -> list[MeasureResult]:
        """The parts' candidates measured each as soon as its build ends, in input order."""
        self.submit(parts)
        inputs = [inp for p in parts for inp in p.inputs]
        builds = [b for p in parts for b in p.builds]
        return self.runner.chain(inputs, self.builder, builds, drop_builds=False)

    def close(self) -> None:
        """Forget the builds still queued (a batch proposed ahead that is never measured)."""
        self.builder.drop_queued()


def localize(build: BuildResult, store: ArtifactStore) -> BuildResult:
    """A build result whose artifact path is absolute on this host."""
    if build.artifact is None:
        return build
    return replace(build, artifact=str(store.path(build.artifact)))
