"""The service commands fail in one line on bad input or a missing Redis, and `tunefarm
devices` prints the tracker's table."""

from __future__ import annotations

import json

import pytest

from tunefarm.cli.main import main
from tunefarm.distributed.tracker import Tracker

pytestmark = pytest.mark.integration


def test_worker_without_redis_is_one_clear_line(monkeypatch, capsys):
    monkeypatch.setenv("TUNEFARM_BROKER_URL", "redis://127.0.0.1:1/0")
    monkeypatch.delenv("TUNEFARM_REDIS_URL", raising=False)
    assert main(["worker", "search", "--metrics-port", "0"]) == 1
    err = capsys.readouterr().err
    assert "cannot reach Redis at redis://127.0.0.1:1/0" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["agent", "--key", "bad key"], "--key 'bad key'"),
        (["agent", "--key", "k", "--target", "tpu"], "--target: target 'tpu': no backend for"),
        (
            ["agent", "--key", "mi250", "--target", "rocm -arch=gfx90a"],
            "no backend for 'rocm'; targets that exist: cpu [-isa=",
        ),
        (["agent", "--key", "k", "--target", "cpu -gpus=2"], "unknown option(s) -gpus"),
        (["worker", "nosuch"], "invalid choice"),
    ],
)
def test_bad_options_name_the_option(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_bad_broker_url_is_named(monkeypatch, capsys):
    monkeypatch.setenv("TUNEFARM_BROKER_URL", "amqp://guest@localhost//")
    assert main(["devices"]) == 2
    assert "TUNEFARM_BROKER_URL='amqp://guest@localhost//'" in capsys.readouterr().err


def test_devices_lists_registered_agents(service_config, monkeypatch, capsys):
    monkeypatch.setenv("TUNEFARM_BROKER_URL", service_config.broker_url)
    monkeypatch.setenv("TUNEFARM_PREFIX", service_config.prefix)
    tracker = Tracker(service_config)
    agents = [tracker.register("cli-key", "cpu") for _ in range(2)]
    try:
        assert main(["devices"]) == 0
        out = capsys.readouterr().out
        row = next(line for line in out.splitlines() if line.startswith("cli-key"))
        assert row.split() == ["cli-key", "2", "2", "0"]
        assert main(["devices", "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert {a["agent_id"] for a in doc["agents"]} >= {a.agent_id for a in agents}
    finally:
        for a in agents:
            tracker.unregister(a)


def test_a_gpu_agent_reports_its_device_to_the_tracker(service_config, monkeypatch, capsys):
    """An agent registers what its backend says about the device (OpenCL here: pocl's CPU
    device; a cuda agent reports the GPU's name, memory and driver, or why it cannot)."""
    from tunefarm_services.agent.tasks import describe_device

    monkeypatch.setenv("TUNEFARM_BROKER_URL", service_config.broker_url)
    monkeypatch.setenv("TUNEFARM_PREFIX", service_config.prefix)
    device = describe_device("opencl")
    assert device.get("name") or device.get("error")
    assert set(describe_device("cuda")) & {"name", "error"}
    tracker = Tracker(service_config)
    agent = tracker.register("gpu-key", "opencl", device=device)
    try:
        (listed,) = [a for a in tracker.agents("gpu-key") if a.agent_id == agent.agent_id]
        assert listed.device == device
        assert main(["devices", "--agents"]) == 0
        assert str(next(iter(device.values()))) in capsys.readouterr().out
    finally:
        tracker.unregister(agent)


def test_simulated_agents_and_their_setting_are_checked(service_config, monkeypatch, capsys):
    """`--slots` runs several agents in one process only for simulated devices, and a
    malformed TUNEFARM_SIMULATE is named before anything starts."""
    monkeypatch.setenv("TUNEFARM_BROKER_URL", service_config.broker_url)
    monkeypatch.delenv("TUNEFARM_SIMULATE", raising=False)
    assert main(["agent", "--key", "k", "--slots", "4", "--metrics-port", "0"]) == 2
    assert "only simulated devices (TUNEFARM_SIMULATE) share a process" in capsys.readouterr().err
    monkeypatch.setenv("TUNEFARM_SIMULATE", "build_s=abc")
    assert main(["devices"]) == 2
    assert "TUNEFARM_SIMULATE: build_s='abc' is not a number" in capsys.readouterr().err
