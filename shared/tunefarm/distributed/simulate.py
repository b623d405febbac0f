"""Simulated work for the scale harness (`benchmarks/scale.py`): the real services with the
compile and the kernel run replaced by delays, so a laptop can play a fleet.

`TUNEFARM_SIMULATE="build_s=0.25,measure_s=5,fail_every=50"` makes every build worker and
agent of the stack sleep instead of compiling or measuring, and answer with a deterministic
cost (a hash of the candidate's config; every 50th candidate a build error), so the tickets,
fair dispatch, tracker and metrics run exactly as in production. `SimulatedJob` plays a
search worker's sending side: batches of candidates through the real `CeleryBuilder` and
`CeleryRunner`, with the job's document and progress events written as a real search does.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from tunefarm.measure.errors import MeasureErrorNo
from tunefarm.measure.types import (
    BuildResult,
    Config,
    MeasureInput,
    MeasureResult,
    MeasureSettings,
)
from tunefarm.task import Task

KERNEL_PREFIX = "simulated:"  # artifact path of a simulated build: nothing to load


@dataclass(frozen=True)
class Simulation:
    """Delays of the simulated build and measurement, in seconds."""

    build_s: float = 0.0
    measure_s: float = 0.0
    fail_every: float = 0  # every Nth candidate (by hash) is a build error; 0: none

    @staticmethod
    def parse(text: str) -> Simulation | None:
        """`build_s=0.25,measure_s=5,fail_every=50` -> Simulation; empty -> None; a bad entry
        names it."""
        if not text.strip():
            return None
        values: dict[str, float] = {}
        for part in text.split(","):
            name, _, raw = part.partition("=")
            name = name.strip()
            if name not in ("build_s", "measure_s", "fail_every"):
                raise ValueError(
                    f"TUNEFARM_SIMULATE: unknown entry {name!r}; "
                    "use build_s=S,measure_s=S,fail_every=N"
                )
            try:
                values[name] = float(raw)
            except ValueError:
                raise ValueError(f"TUNEFARM_SIMULATE: {name}={raw!r} is not a number") from None
            if not 0 <= values[name] < 3600:
                raise ValueError(f"TUNEFARM_SIMULATE: {name}={raw} must be in [0, 3600)")
        return Simulation(**values)


def record_dispatch(r, config, step: str, waited_s: float, idle_s: float) -> None:
    """The harness's clock of a started build or measurement (only under TUNEFARM_SIMULATE):
    when, how long it had waited since it was queued, and how long the worker that starts it
    had been idle. The smaller of the two is the dispatch overhead: the time a ready
    candidate and a free worker both waited."""
    line = f"{time.time():.4f} {waited_s:.4f} {min(idle_s, 1e6):.4f}"
    r.rpush(config.key("simulate", "dispatch", step), line)


def _unit(inp_json: dict[str, Any], salt: bytes = b"") -> float:
    """A number in [0, 1) fixed by the candidate (and `salt`)."""
    digest = hashlib.sha1(salt + json.dumps(inp_json, sort_keys=True).encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32


def cost_of(inp_json: dict[str, Any]) -> float:
    """A deterministic cost (seconds) per candidate: same config, same cost."""
    return 1e-4 * (1.0 + _unit(inp_json))


def delay_of(mean_s: float, inp_json: dict[str, Any], salt: bytes) -> float:
    """How long a simulated build or measurement takes: 0.5x to 1.5x the mean, fixed by the
    candidate. Real candidates differ; equal delays would march every job in lock step."""
    return mean_s * (0.5 + _unit(inp_json, salt))


def build(sim: Simulation, inp_json: dict[str, Any]) -> dict[str, Any]:
    """What a build worker answers for a simulated compile."""
    time.sleep(delay_of(sim.build_s, inp_json, b"build"))
    source_hash = hashlib.sha1(json.dumps(inp_json, sort_keys=True).encode()).hexdigest()
    if sim.fail_every and int(source_hash[:8], 16) % int(sim.fail_every) == 0:
        failed = BuildResult.failed(MeasureErrorNo.BUILD_ERROR, "simulated compile error")
        return failed.to_json()
    result = BuildResult(KERNEL_PREFIX + source_hash, flops=1e6, build_seconds=sim.build_s,
                         source_hash=source_hash)  # fmt: skip
    return result.to_json()


def measure(sim: Simulation, inp_json: dict[str, Any], settings_json: dict) -> dict[str, Any]:
    """What an agent answers for a simulated measurement."""
    time.sleep(delay_of(sim.measure_s, inp_json, b"measure"))
    cost = cost_of(inp_json)
    settings = MeasureSettings.from_json(settings_json)
    result = MeasureResult((cost,) * settings.repeat, MeasureErrorNo.NO_ERROR, "", sim.measure_s,
                           time.time(), settings)  # fmt: skip
    return {**result.to_json(), "agent_seconds": sim.measure_s}


def candidates(job: int, batch: int, start: int) -> list[MeasureInput]:
    """A batch of distinct candidates of one small dense task (the payload a real job
    sends, at a realistic size)."""
    task = Task.make("dense", batch=1, in_dim=256 + job, out_dim=256)
    return [
        MeasureInput(task, Config.make({"tile_x": 1 + i % 16, "tile_k": 4, "n": i}, index=i))
        for i in range(start, start + batch)
    ]


@dataclass
class SimulatedJob:
    """One job's sending side: `rounds` batches of `batch` candidates, built and measured
    through the services; progress goes to the job's document and events."""

    app: Any
    job_id: str
    device_key: str
    batch: int
    rounds: int
    index: int = 0
    measured: int = 0
    errors: int = 0
    wall_s: float = 0.0
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> SimulatedJob:
        from tunefarm import metrics
        from tunefarm.distributed.jobs import JobStore
        from tunefarm.distributed.remote import CeleryBuilder, CeleryRunner

        config = self.app.tunefarm_config
        jobs = JobStore(config)
        settings = MeasureSettings(repeat=1, timeout_s=60)
        builder = CeleryBuilder(self.app, timeout_s=60)
        runner = CeleryRunner(self.app, self.device_key, settings)
        jobs.set_state(self.job_id, "tuning", waiting_for=None)
        start = time.monotonic()
        metrics.SEARCH_SLOTS.inc()  # a simulated job holds a search slot as a real one does
        try:
            self._rounds(jobs, builder, runner, metrics)
        finally:
            metrics.SEARCH_SLOTS.dec()
        self.wall_s = time.monotonic() - start
        jobs.set_state(self.job_id, "done")
        return self

    def _rounds(self, jobs, builder, runner, metrics) -> None:
        for r in range(self.rounds):
            if self.stop.is_set():
                break
            inputs = candidates(self.index, self.batch, r * self.batch)
            results = runner.measure_batch(inputs, builder)
            ok = sum(res.ok for res in results)
            self.measured += ok
            self.errors += len(results) - ok
            event = {"task": 0, "trials": self.measured, "ok": ok, "errors": len(results) - ok}
            jobs.add_event(self.job_id, "batch", event)
            jobs.update(self.job_id, trials_done=self.measured)
            for res in results:
                status = "ok" if res.ok else res.error_no.name
                metrics.TRIALS.labels(self.job_id, "0", status).inc()
            best = min((res.min for res in results if res.ok), default=None)
            if best is not None:
                metrics.BEST_GFLOPS.labels(self.job_id, "0").set(1e6 / best / 1e9)
                metrics.ESTIMATED_LATENCY.labels(self.job_id).set(best * 1e3)
