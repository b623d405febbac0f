"""Builds ahead of measurement in the services, for real: a build worker and an `opencl` agent
(pocl runs it on the CPU) as Celery workers on a private Redis database, the search in this
process sending candidates over Celery (CeleryBuilder, CeleryRunner with propose_ahead, as the
search service makes them for a device key). Batch k+1 is proposed while batch k is measured
and its builds are sent to the farm at once (`remote.RemoteBuildAhead`), so the farm builds
it while the agent still measures batch k; with TUNEFARM_OVERLAP_BATCHES=0 (and before) the
builds of batch k+1 are sent only once batch k's measurements are back.

What the farm did when is read from the artifact store the workers share: a build writes
its candidate's OpenCL C source (`<hash>.src.cl`) into the store's kernel cache before it
compiles, so the source's mtime is when the farm started on that candidate."""

from __future__ import annotations

import math
import time

import pytest
from stack_env import (
    REDIS_PORT,
    app_once_agent_joins,
    flush_db,
    free_port,
    redis_ok,
    stack_env,
)

from tunefarm.distributed.config import ServiceConfig
from tunefarm.measure import MeasureSettings
from tunefarm.task import Task

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DB = 10
KEY = "ahead-opencl"
TASK = Task.make("dense", target="opencl", data=(4, 64), weight=(64, 64))
# a measurement of a second or more: the farm has time to start on the next batch
SETTINGS = MeasureSettings(repeat=2, min_repeat_ms=500, timeout_s=60)


def _need_opencl() -> None:
    from tunefarm.backends import get_backend

    try:
        get_backend("opencl").device_info()
    except Exception as exc:
        pytest.skip(f"no OpenCL device: {exc}")


@pytest.fixture(scope="module")
def farm(tmp_path_factory):
    """One build worker and one opencl agent (no gateway or search service: the search is
    this process)."""
    if not redis_ok(DB):
        pytest.skip(f"the services tests need Redis at 127.0.0.1:{REDIS_PORT}")
    _need_opencl()
    from tunefarm_services.stack import LocalStack, StackSpec

    tmp = tmp_path_factory.mktemp("ahead-farm")
    env = stack_env(tmp, DB, {})
    flush_db(DB)
    stack = LocalStack(StackSpec(port=free_port(), agents=[(KEY, "opencl")]), env, tmp / "logs")
    stack.commands = {
        name: argv
        for name, argv in stack.plan().items()
        if name.startswith(("buildfarm-", "agent-"))
    }
    for name in stack.commands:
        stack.start_one(name)
    try:
        yield stack
    finally:
        stack.stop()
        flush_db(DB)


@pytest.fixture(scope="module")
def app(farm):
    """The Celery app of the farm, once its agent is in the tracker."""
    return app_once_agent_joins(farm, KEY, 90)[0]


@pytest.mark.parametrize("overlap", ["on", "off"])
def test_the_farm_builds_the_next_batch_while_the_agent_measures(app, farm, overlap, monkeypatch):
    from tunefarm.distributed.artifacts import ArtifactStore
    from tunefarm.distributed.remote import CeleryBuilder, CeleryRunner
    from tunefarm.tune.random_tuner import RandomTuner
    from tunefarm.tune.tuner import ENV_OVERLAP_BATCHES, MeasureOption

    if overlap == "off":
        monkeypatch.setenv(ENV_OVERLAP_BATCHES, "0")
    from tunefarm.backends import registry

    kernels = ArtifactStore(ServiceConfig.from_env(farm.env).artifacts).kernels_dir()
    before = set(kernels.glob("*.src.cl"))
    ends: list[float] = []  # wall-clock time each batch's measurements were all back
    chain = CeleryRunner.chain

    def timed_chain(self, *args, **kwargs):
        try:
            return chain(self, *args, **kwargs)
        finally:
            ends.append(time.time())

    monkeypatch.setattr(CeleryRunner, "chain", timed_chain)
    tuner = RandomTuner(TASK, seed=11 if overlap == "on" else 12)  # new candidates each
    tuner.default_index, tuner.recheck_rounds = None, 0  # one chain per batch
    option = MeasureOption(CeleryBuilder(app), CeleryRunner(app, KEY, SETTINGS, True))
    summary = tuner.tune(9, option, batch_size=3)
    farm.check_alive()

    assert summary.trials == 9 and len(ends) == 3, (summary, ends)
    assert sum(math.isfinite(c) for _, c in tuner.history) >= 6, summary.errors
    # batch 2 (the third) is proposed while batch 1 is measured; the farm started on its
    # builds before batch 1's last measurement came back only where they were sent ahead
    code = {p.read_text(): p for p in kernels.glob("*.src.cl") if p not in before}
    built = [[i for i, c in tuner.history[k : k + 3] if math.isfinite(c)] for k in (0, 3, 6)]
    sources = [{registry.generate_source(inp).code for inp in tuner.inputs_for(b)} for b in built]
    last = sources[2] - sources[0] - sources[1]  # a source two configs share is left out
    assert last and last <= code.keys(), "batch 2's sources are not in the farm's cache"
    early = [code[c].stat().st_mtime < ends[1] for c in last]
    assert any(early) == (overlap == "on"), (early, ends)
