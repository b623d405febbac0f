"""The users'-models benchmark (`benchmarks/models.py`) stopped mid-tuning: SIGTERM ends the
run through its clean-up, which stops every process it started (the forkserver, the build
workers, the measurement processes), instead of killing the script alone and leaving each of
them to run on until its job is done and its reply finds no parent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "models.py"


def _tiny_export(folder: Path) -> None:
    """A conv + relu export and its saved input, named as tools/export_test_models.py names
    them (model.exporter.onnx, model.exporter.inputs.npz)."""
    rng = np.random.default_rng(0)
    w = rng.uniform(-1, 1, (16, 8, 3, 3)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 12, 12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 12, 12])],
        [numpy_helper.from_array(w, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, folder / "tiny.legacy.onnx")
    x = rng.uniform(-1, 1, (1, 8, 12, 12)).astype(np.float32)
    np.savez(folder / "tiny.legacy.inputs.npz", x=x)


def _session(sid: int) -> dict[int, str]:
    """pid -> command line of every live process in session `sid` (zombies excluded)."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": state, ppid, pgrp, sid
        if int(fields[3]) == sid and fields[0] != "Z":
            out[int(entry.name)] = cmd
    return out


def _wait(cond, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.2)
    return cond()


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads processes from /proc (Linux)")
def test_sigterm_mid_tuning_leaves_no_process_behind(tmp_path):
    _tiny_export(tmp_path)
    argv = [sys.executable, str(SCRIPT), "--dir", str(tmp_path), "--cores", "1"]
    argv += ["--trials", "400", "--tuner", "random", "--rounds", "1", "--repeat", "1"]
    argv += ["--log-dir", str(tmp_path / "logs"), "--json", str(tmp_path / "out.json")]
    proc = subprocess.Popen(  # its own session: what it starts is found by session id
        argv, cwd=ROOT, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        started = _wait(
            lambda: (
                proc.poll() is not None
                or any("forkserver" in c for c in _session(proc.pid).values())
            ),
            180,
        )
        assert started and proc.poll() is None, "the run ended before tuning started"
        time.sleep(2)  # into the measurements
        os.kill(proc.pid, signal.SIGTERM)
        output = proc.communicate(timeout=60)[0].decode(errors="replace")
        _wait(lambda: not _session(proc.pid), 20)  # within the clean-up's own waits
        left = _session(proc.pid)
        assert not left, f"still running after SIGTERM: {left}"
        # ended as SystemExit, so the tuning's clean-up ran: its workers were told to stop
        # (or killed), not left to find their parent gone on a write (a BrokenPipeError
        # from each, once its job was done)
        assert proc.returncode == 128 + signal.SIGTERM, output[-2000:]
        assert "BrokenPipeError" not in output, output[-2000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in _session(proc.pid):  # what a failed run left: not ours to keep
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


class _Turns:
    """A real executor that notes in `order` when it is profiled (which network's turn)."""

    def __init__(self, label: str, executor, order: list[str]):
        self.label, self.executor, self.order = label, executor, order

    def profile(self, repeat: int = 10):
        self.order.append(self.label)
        return self.executor.profile(repeat=repeat)


def test_profiles_take_turns_and_keep_every_call(tmp_path):
    """Issue 23: the per-call profiles of the untuned and tuned networks are taken in turns,
    round by round, so a change of load cannot read as one network's kernels being slower;
    each node's time is its median over the rounds, slowest first."""
    import importlib.util

    from tunefarm.compiler import compile_graph
    from tunefarm.frontend.onnx_import import load_onnx
    from tunefarm.runtime.executor import GraphExecutor

    spec = importlib.util.spec_from_file_location("models_benchmark", SCRIPT)
    models = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = models  # its dataclasses look their module up
    try:
        spec.loader.exec_module(models)
    finally:
        sys.modules.pop(spec.name, None)
    _tiny_export(tmp_path)
    compile_graph(load_onnx(tmp_path / "tiny.legacy.onnx"), "cpu -isa=avx2 -cores=1").save(
        tmp_path / "net.tfa"
    )
    x = np.load(tmp_path / "tiny.legacy.inputs.npz")["x"]
    order: list[str] = []
    nets = {}
    for label in ("untuned", "tuned"):
        ex = GraphExecutor.load(tmp_path / "net.tfa", cache_dir=tmp_path)
        ex.set_input("x", x)
        nets[label] = _Turns(label, ex, order)
    got = models.interleaved_profiles(nets, rounds=3, repeat=2)
    assert order == ["untuned", "tuned"] * 3
    calls = [e.node for e in nets["untuned"].executor.profile(repeat=1)]
    for label in nets:
        assert sorted(node for node, _, _ in got[label]) == sorted(set(calls))
        times = [ms for _, _, ms in got[label]]
        assert all(ms > 0 for ms in times) and times == sorted(times, reverse=True)


def test_collect_reads_each_tuned_model_against_the_fma_ceiling(tmp_path):
    """Issue 23: `--collect ... --peak` turns each tuned row's times into FLOP rates of the
    model's direct multiply-adds (`model_flops`) and says what share of one core's FMA
    ceiling the 0.7x-ORT goal would take."""
    import json

    _tiny_export(tmp_path)  # one 3x3 s1 conv: 2 * (16*12*12) * 8 * 9 = 331776 FLOPs
    row = {"file": "tiny.legacy.onnx", "import": "ok", "tasks": 1, "trials": 8,
           "tuning_s": 1.0, "tuned_match": True, "tuned_rel_err": 0.0, "load_avg_1m": 1.0,
           "ort_ms": 0.0041472, "untuned_ms": 0.005, "tuned_ms": 0.0033177,
           "untuned_ratio": 1.2, "tuned_ratio": 0.8}  # fmt: skip
    part = tmp_path / "part.json"
    part.write_text(json.dumps({"machine": {}, "rows": [row]}))
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--dir", str(tmp_path), "--collect", str(part),
         "--peak", "100", "--json", str(tmp_path / "merged.json")],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    # ORT 331776 FLOPs / 4.1472 us = 80 GFLOP/s; tuned 100; 0.7x ORT needs 80 / 0.7 = 114
    assert "| tiny.legacy | 0.00 | 100% | 80 | 100 | 114 | 114% |" in out, out
