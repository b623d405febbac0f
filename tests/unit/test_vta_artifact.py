"""The packed network as a file: `tunefarm compile --target vta --quantize int8` writes it
(packed graph, each packed conv's program from its best record, the CPU stem and head as CPU
artifacts), `tunefarm run` runs it split between the CPU and the simulator and prints top-1
and the time split; loading refuses a file whose programs its configs no longer make; the
services' evaluation of two such files checks the tuned one bit for bit."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from tunefarm.cli.main import main
from tunefarm.frontend import zoo
from tunefarm.frontend.models import load_model
from tunefarm.recipe.packed import compile_packed_builds, evaluate_packed, pack_for_target
from tunefarm.recipe.packed_artifact import PackedArtifactError, is_packed_artifact, load_packed

TRIALS = 12


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("m") / "r18.onnx"
    zoo.save("resnet-18", str(path), image_size=64)
    return str(path)


@pytest.fixture(scope="module")
def records(model_file, tmp_path_factory):
    """A few tuning records of the packed convs (measured on the simulator here)."""
    log = str(tmp_path_factory.mktemp("r") / "r.jsonl")
    argv = ["tune", model_file, "--target", "vta", "--quantize", "int8", "--trials",
            str(TRIALS), "--tuner", "random", "--log", log, "--trials-per-round", "6",
            "--repeat", "1"]  # fmt: skip
    assert main(argv) == 0
    return log


@pytest.fixture(scope="module")
def artifact(model_file, records, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("a") / "r18.tfa")
    argv = ["compile", model_file, "--target", "vta", "--quantize", "int8", "--log", records,
            "-o", path, "--json"]  # fmt: skip
    assert main(argv) == 0
    return path


def test_compile_writes_a_packed_network_with_the_records_configs(artifact, records, capsys):
    assert is_packed_artifact(artifact)
    with zipfile.ZipFile(artifact) as z:
        manifest = json.loads(z.read("manifest.json"))
        names = set(z.namelist())
    assert manifest["format"] == "tunefarm-packed" and manifest["target"] == "vta"
    assert len(manifest["kernels"]) == 19  # every packed conv node of resnet-18
    assert {k["file"] for k in manifest["kernels"]} <= names
    assert {s["file"] for s in manifest["segments"]} == {"cpu/cpu0.tfa", "cpu/cpu1.tfa"}
    tuned = [k for k in manifest["kernels"] if k["source"] == "record"]
    assert tuned  # the tuned tasks' nodes run their records' configs
    measured = [json.loads(line) for line in open(records)]
    configs = [r["config"]["values"] for r in measured if r["error_no"] == 0]
    assert all(k["config"] in configs for k in tuned)


def test_run_prints_top1_and_the_time_split_and_matches_the_in_process_network(
    artifact, model_file, records, capsys
):
    from tunefarm.compiler.cpu_segments import compile_segments
    from tunefarm.compiler.packed import PackedNetwork
    from tunefarm.tune.dispatch import ApplyHistoryBest

    assert main(["run", artifact, "--random-inputs", "3"]) == 0
    out = capsys.readouterr().out
    assert "top-1 class:" in out
    assert "time: accelerator" in out and "(simulated, vta) + CPU" in out
    assert "cycles; busy: load" in out

    assert main(["run", artifact, "--random-inputs", "3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    packed = doc["packed"]
    assert packed["accel_ms"] > 0 and packed["cpu_ms"] > 0
    assert set(packed["device"]["busy_share"]) == {"load", "compute", "store"}

    # the same network compiled in this process with the same records: same output, same
    # simulated time
    graph = load_model(model_file)[1]
    with load_packed(artifact) as net:
        info = {v.name: v for v in net.graph.inputs}
        rng = np.random.default_rng(3)
        feed = {n: rng.uniform(-1, 1, size=v.shape).astype(v.dtype) for n, v in info.items()}
        got, timing = net.run(feed)
    packed_graph, work = pack_for_target(graph, "vta"), artifact_dir(artifact)
    segments = compile_segments(packed_graph, work / "cpu")
    history = ApplyHistoryBest(records)
    direct = PackedNetwork(packed_graph, "vta", history, work / "kernels", segments)
    want, direct_timing = direct.run(feed)
    assert all(np.array_equal(got[k], want[k]) for k in want)
    assert timing.accel_s == pytest.approx(direct_timing.accel_s)
    assert packed["top1"] == int(np.argmax(want[graph.outputs[0]]))
    assert packed["accel_ms"] == pytest.approx(timing.accel_s * 1e3)


def artifact_dir(artifact: str):
    from pathlib import Path

    path = Path(artifact).with_suffix(".direct")
    path.mkdir(exist_ok=True)
    return path


def test_a_changed_program_is_refused(artifact, tmp_path, capsys):
    bad = tmp_path / "bad.tfa"
    with zipfile.ZipFile(artifact) as src, zipfile.ZipFile(bad, "w") as dst:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "kernels/layer1.0.conv1.vta.json":  # one instruction less
                doc = json.loads(data)
                data = json.dumps({**doc, "insns": doc["insns"] - 1}).encode()
            dst.writestr(item, data)
    assert main(["run", str(bad), "--random-inputs", "0"]) == 2
    err = capsys.readouterr().err
    assert "packed conv 'layer1.0.conv1'" in err and "another version" in err
    with pytest.raises(PackedArtifactError, match="no such file"):
        load_packed(tmp_path / "missing.tfa")


def test_compile_refusals_say_what_to_do(model_file, tmp_path, capsys):
    out = str(tmp_path / "x.tfa")
    assert main(["compile", model_file, "--target", "vta", "-o", out]) == 2
    assert "--quantize int8" in capsys.readouterr().err
    argv = ["compile", model_file, "--target", "vta", "--quantize", "int8", "-o", out]
    assert main([*argv, "--select-top", "2"]) == 2
    assert "--select-top: not available with --target vta" in capsys.readouterr().err
    assert main([*argv, "--log", str(tmp_path / "none.jsonl")]) == 2
    assert "no such records file" in capsys.readouterr().err


def test_the_services_evaluation_of_two_builds(model_file, records, tmp_path):
    graph = load_model(model_file)[1]
    packed = pack_for_target(graph, "vta")
    tuned, untuned = tmp_path / "net.tfa", tmp_path / "untuned.tfa"
    infos = compile_packed_builds(packed, "vta", records, None, tuned, untuned)
    assert infos["tuned"]["tuned"] >= 1 and infos["untuned"]["tuned"] == 0
    assert len(infos["fallbacks"]) == 19 - infos["tuned"]["tuned"]
    result = evaluate_packed(graph, tuned, untuned)
    assert result["bit_exact"] is True
    assert result["top1"] == result["float_top1"]
    assert result["tuned"]["accel_ms"] <= result["untuned"]["accel_ms"] * 1.0001
    assert result["device"]["cycles"] > 0
    assert 0 < result["device"]["busy_share"]["compute"] <= 1
    assert result["cpu_compiled_ms"] > 0
    assert len(result["kernels"]) == 19
