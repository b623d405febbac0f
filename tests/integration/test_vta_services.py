"""Packed convs tuned through the services on a VTA agent, with every tuner: a real build
worker and a real `tunefarm agent --key ... --target vta` process on a private Redis database;
the tuner in this process sends candidates over Celery (CeleryBuilder, CeleryRunner), the agent
measures them by simulation, the tracker table lists it, and every result is the simulated
time of the candidate's program at the config's clock."""

from __future__ import annotations

import json
import math

import pytest
from stack_env import flush_db, redis_ok, stack_env, wait_for

from tunefarm.backends import parse_target, registry
from tunefarm.backends.vta.conv2d import lower_conv2d_packed, simulate
from tunefarm.backends.vta.simulator import Simulator
from tunefarm.backends.vta.target import hw_config
from tunefarm.backends.vta.template import workload
from tunefarm.cli.main import main
from tunefarm.distributed.config import ServiceConfig
from tunefarm.measure import MeasureSettings
from tunefarm.task import Task

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DB = 11
KEY = "vta-sim"
TASK = Task.make(
    "conv2d_packed", target="vta", data=(1, 32, 14, 14), weight=(32, 32, 3, 3), padding=1
)


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    """A build worker and a vta agent, and the environment that reaches them."""
    if not redis_ok(DB):
        pytest.skip("the services tests need Redis at 127.0.0.1:6379")
    from tunefarm_services.stack import LocalStack, StackSpec

    tmp = tmp_path_factory.mktemp("vta-stack")
    env = stack_env(tmp, DB, {})
    flush_db(DB)
    stack = LocalStack(StackSpec(agents=[(KEY, "vta")]), env, tmp / "logs")
    stack.commands = {
        name: argv for name, argv in stack.plan().items() if name.startswith(("buildfarm", "agent"))
    }
    for name in stack.commands:
        stack.start_one(name)
    try:
        yield stack
    finally:
        stack.stop()
        flush_db(DB)


@pytest.fixture(scope="module")
def app(services):
    """The Celery app of the test stack, once its vta agent is in the tracker."""
    from tunefarm.distributed.celery_app import make_app
    from tunefarm.distributed.tracker import Tracker

    config = ServiceConfig.from_env(services.env)
    tracker = Tracker(config)
    wait_for(lambda: KEY in tracker.targets(), 60, "the vta agent in the tracker")
    services.check_alive()
    assert tracker.targets()[KEY] == {"vta"}
    return make_app(config)


def test_the_tracker_table_lists_the_vta_agent(services, app, monkeypatch, capsys):
    for name in ("TUNEFARM_BROKER_URL", "TUNEFARM_REDIS_URL", "TUNEFARM_PREFIX"):
        monkeypatch.setenv(name, services.env[name])
    assert main(["devices", "--agents"]) == 0
    table = capsys.readouterr().out
    assert next(ln for ln in table.splitlines() if ln.startswith(KEY)).split()[:2] == [KEY, "1"]
    assert "vta" in table.split(KEY)[-1]  # the agent's row names its target


@pytest.mark.parametrize("tuner_name", ["xgb", "ga", "random", "gridsearch"])
def test_a_vta_agent_tunes_a_packed_conv(app, tuner_name):
    from tunefarm.distributed.remote import CeleryBuilder, CeleryRunner
    from tunefarm.tune.factory import make_tuner
    from tunefarm.tune.tuner import MeasureOption

    settings = MeasureSettings(repeat=2, min_repeat_ms=1, timeout_s=60)
    option = MeasureOption(CeleryBuilder(app), CeleryRunner(app, KEY, settings))
    tuner = make_tuner(tuner_name, TASK, seed=0)
    summary = tuner.tune(16, option, batch_size=8)
    assert summary.trials == 16
    ok = [cost for _, cost in tuner.history if math.isfinite(cost)]
    assert len(ok) >= 4, tuner.history  # most of the space fits the buffers

    # the best is the simulated time of its program, as the agent measured it
    hw = hw_config(parse_target(TASK.target))
    best = tuner.space.get(tuner.best_index)
    sim, _ = simulate(lower_conv2d_packed(workload(TASK), best, hw), Simulator(hw))
    assert tuner.best_cost == pytest.approx(hw.seconds(sim.cycles))
    if tuner.default_first:  # the default is measured first and never lost
        default = registry.default_config(TASK).as_dict()
        sim, _ = simulate(lower_conv2d_packed(workload(TASK), default, hw), Simulator(hw))
        assert tuner.best_cost <= hw.seconds(sim.cycles)


def test_the_tutorials_network_flow_through_a_vta_agent(app, tmp_path):
    """Quantized, packed resnet-18 (64x64): its packed convs tuned on the vta agent with a
    small budget, compiled with the agent's best records and run split CPU + simulator; the
    output equals the int8 CPU reference bit for bit."""
    from tunefarm.distributed.remote import CeleryBuilder, CeleryRunner
    from tunefarm.frontend import zoo
    from tunefarm.frontend.models import load_model
    from tunefarm.recipe.packed import PackedJobOptions, run_packed_job
    from tunefarm.tune.records import load_records
    from tunefarm.tune.tuner import MeasureOption

    graph = load_model(zoo.build("resnet-18", image_size=64))[1]
    settings = MeasureSettings(repeat=1, min_repeat_ms=0, timeout_s=60)
    option = MeasureOption(CeleryBuilder(app), CeleryRunner(app, KEY, settings))
    opts = PackedJobOptions(target="vta", trials=20, tuner="random", trials_per_round=10)
    log = str(tmp_path / "r18.jsonl")
    with open(tmp_path / "out.txt", "w") as out:
        result = run_packed_job(graph, opts, log, out=out, remote=(option, KEY))
    records = load_records(log)
    assert len(records) == 20 and {r.device_key for r in records} == {KEY}
    assert sum(k["source"] == "record" for k in result.kernels) >= 1
    assert result.exact
    assert result.top1 == result.float_top1


def test_the_cli_tunes_a_network_through_the_vta_agent(
    services, app, tmp_path, monkeypatch, capsys
):
    """`tunefarm tune MODEL --target vta --quantize int8 --key KEY`: the packed convs measured
    by the agent, the network run here, bit-exact; a key with no vta agent is refused."""
    from tunefarm.frontend import zoo

    for name in ("TUNEFARM_BROKER_URL", "TUNEFARM_REDIS_URL", "TUNEFARM_PREFIX"):
        monkeypatch.setenv(name, services.env[name])
    model = tmp_path / "r18.onnx"
    zoo.save("resnet-18", str(model), image_size=64)
    log = tmp_path / "r.jsonl"
    argv = ["tune", str(model), "--target", "vta", "--quantize", "int8", "--trials", "10",
            "--tuner", "random", "--trials-per-round", "10", "--log", str(log)]  # fmt: skip
    assert main([*argv, "--key", KEY]) == 0
    assert "equal bit for bit" in capsys.readouterr().out
    assert {json.loads(line)["device_key"] for line in log.read_text().splitlines()} == {KEY}
    assert main([*argv, "--key", "nobody"]) == 2
    assert "no live agent of that key serves vta" in capsys.readouterr().err
