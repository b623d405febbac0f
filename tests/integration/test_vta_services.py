"""Packed convs tuned through the services on a VTA agent, with every tuner: the whole stack
(gateway, converter, extractor, search, a build worker and a real `tunefarm agent --key ...
--target vta` process) on a private Redis database; the tuner in this process sends candidates
over Celery (CeleryBuilder, CeleryRunner), the agent measures them by simulation, the tracker
table lists it, and every result is the simulated time of the candidate's program at the
config's clock. A vta job submitted over REST runs the tutorial's flow through the services."""

from __future__ import annotations

import io
import json
import math
import zipfile

import pytest
import requests
from stack_env import (
    REDIS_PORT,
    app_once_agent_joins,
    flush_db,
    free_port,
    redis_ok,
    stack_env,
    wait_for,
)

from tunefarm.backends import parse_target, registry
from tunefarm.backends.vta.conv2d import lower_conv2d_packed, simulate
from tunefarm.backends.vta.simulator import Simulator
from tunefarm.backends.vta.target import hw_config
from tunefarm.backends.vta.template import workload
from tunefarm.cli.main import main
from tunefarm.measure import MeasureSettings
from tunefarm.task import Task

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DB = 11
KEY = "vta-sim"
TOKEN = "vta-submit-token"
TASK = Task.make(
    "conv2d_packed", target="vta", data=(1, 32, 14, 14), weight=(32, 32, 3, 3), padding=1
)


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    """The whole stack with one vta agent, and the environment that reaches it."""
    if not redis_ok(DB):
        pytest.skip(f"the services tests need Redis at 127.0.0.1:{REDIS_PORT}")
    from tunefarm_services.stack import LocalStack, StackSpec

    tmp = tmp_path_factory.mktemp("vta-stack")
    env = stack_env(tmp, DB, {TOKEN: "read,submit"})
    flush_db(DB)
    spec = StackSpec(port=free_port(), agents=[(KEY, "vta")])
    stack = LocalStack(spec, env, tmp / "logs").start()
    stack.url = f"http://127.0.0.1:{spec.port}"
    try:
        yield stack
    finally:
        stack.stop()
        flush_db(DB)


@pytest.fixture(scope="module")
def app(services):
    """The Celery app of the test stack, once its vta agent is in the tracker."""
    app, tracker = app_once_agent_joins(services, KEY, 60)
    assert tracker.targets()[KEY] == {"vta"}
    return app


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


def _api(stack, method: str, path: str, **kw) -> requests.Response:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    return requests.request(method, stack.url + "/api/v1" + path, headers=headers, timeout=30, **kw)


def test_a_vta_job_over_rest_runs_the_packed_flow(services, app, tmp_path):
    """A quantized resnet-18 (64x64, uploaded) with target vta and quantize int8: its packed
    convs extracted and tuned on the vta agent, compiled with the best records, run by the
    agent split CPU + simulator; the job reports the packed tasks, the simulated and CPU
    times, top-1, and equality with the int8 CPU network bit for bit; the artifact is the
    packed network file that `tunefarm run` runs."""
    from tunefarm.frontend import zoo

    wait_for(lambda: requests.get(services.url + "/readyz", timeout=2).ok, 60, "the gateway")
    model = tmp_path / "r18.onnx"
    zoo.save("resnet-18", str(model), image_size=64)
    fields = {"target": "vta", "quantize": "int8", "device_key": KEY, "trials": "16",
              "tuner": "random", "name": "r18-vta"}  # fmt: skip
    files = {"model": ("r18.onnx", model.read_bytes(), "application/octet-stream")}
    reply = _api(services, "POST", "/jobs", data=fields, files=files)
    assert reply.status_code == 202, reply.text
    job_id = reply.json()["id"]

    def finished():
        doc = _api(services, "GET", f"/jobs/{job_id}").json()
        return doc if doc["state"] in ("done", "failed", "cancelled") else None

    try:
        doc = wait_for(finished, 240, f"job {job_id}", every_s=1)
    except AssertionError:
        logs = "\n".join(f"--- {n}\n{services.logs(n, 15)}" for n in services.procs)
        raise AssertionError(f"job did not finish\n{logs}") from None
    assert doc["state"] == "done", doc.get("error")
    assert len(doc["tasks"]) == 10 and all("conv2d_packed" in t["task"] for t in doc["tasks"])
    assert sum(t["trials"] for t in doc["tasks"]) == doc["trials_done"] == 16
    packed = doc["packed"]
    assert packed["bit_exact"] is True
    assert packed["top1"] == packed["float_top1"]
    assert packed["tuned"]["accel_ms"] > 0 and packed["tuned"]["cpu_ms"] > 0
    assert packed["device"]["cycles"] > 0
    assert set(packed["device"]["busy_share"]) == {"load", "compute", "store"}
    assert len(packed["kernels"]) == 19  # every packed conv node of resnet-18
    assert sum(k["source"] == "record" for k in packed["kernels"]) >= 1
    # the delivered build is the one with the shorter simulated time (it has no noise)
    faster = packed["tuned"]["accel_ms"] <= packed["untuned"]["accel_ms"]
    assert doc["delivered"] == ("tuned" if faster else "untuned")
    records = _api(services, "GET", f"/jobs/{job_id}/records").text.splitlines()
    assert {json.loads(line)["device_key"] for line in records} == {KEY}

    artifact = _api(services, "GET", f"/jobs/{job_id}/artifact")
    assert artifact.status_code == 200
    with zipfile.ZipFile(io.BytesIO(artifact.content)) as zf:
        manifest = json.loads(zf.read("manifest.json"))
    assert manifest["format"] == "tunefarm-packed" and manifest["target"] == "vta"
