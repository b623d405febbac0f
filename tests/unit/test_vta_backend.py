"""The vta backend as a target: its target strings, conv2d_packed through the op registry and
the measure layer (LocalBuilder, LocalRunner on the simulator), bit-exact against numpy, with
overflowing configs and deadlocking programs as error records that say why."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tunefarm.backends import TargetError, canonical, get_backend, kinds, parse_target, registry
from tunefarm.backends.vta.config import load_config
from tunefarm.backends.vta.conv2d import lower_conv2d_packed, simulate
from tunefarm.backends.vta.conv2d_space import KNOBS, check_config, valid_configs
from tunefarm.backends.vta.program import load_vta_kernel
from tunefarm.backends.vta.simulator import Simulator
from tunefarm.backends.vta.survey import RESNET18_TASKS
from tunefarm.backends.vta.target import hw_config
from tunefarm.backends.vta.template import workload
from tunefarm.cli.main import main
from tunefarm.measure import Config, MeasureErrorNo, MeasureInput, MeasureSettings
from tunefarm.oprun import run_op
from tunefarm.task import Task

SETTINGS = MeasureSettings(repeat=2, min_repeat_ms=1, timeout_s=60)


def conv_task(data, weight, target="vta", **params) -> Task:
    return Task.make("conv2d_packed", target=target, data=data, weight=weight, **params)


def tutorial_task(row, target="vta") -> Task:
    """A resnet-18 packed conv from the tutorial's tuple (batch, h, w, ci, co, kh, kw, ph, pw,
    sh, sw), with a symmetric clip so that every output bit shows."""
    n, h, w, ci, co, kh, kw, ph, pw, sh, sw = row
    return conv_task(
        (n, ci, h, w), (co, ci, kh, kw), target, strides=(sh, sw), padding=(ph, pw),
        shift=11, clip=(-128, 127),
    )  # fmt: skip


SMALL = [
    conv_task((1, 32, 9, 7), (32, 32, 3, 3), padding=1, shift=9, clip=(-128, 127)),
    conv_task((1, 48, 11, 13), (16, 48, 3, 3), strides=2, padding=(0, 1, 2, 1), shift=10),
    conv_task((2, 16, 5, 5), (32, 16, 1, 1)),
    # with a bias (a network's folded batch norm): loaded into the accumulator, added by the ALU
    conv_task((1, 32, 9, 7), (48, 32, 3, 3), padding=1, shift=9, clip=(-128, 127), bias=True),
    conv_task((2, 32, 6, 6), (32, 32, 1, 1), strides=2, shift=8, clip=(-128, 127), bias=True),
]


# -- targets ----------------------------------------------------------------------------------
def test_vta_is_a_target_kind():
    assert "vta" in kinds()
    assert get_backend("vta").ops() == ["conv2d_packed"]
    assert canonical("vta") == "vta"
    assert canonical("vta -config=1x16x16") == "vta"  # the default preset by its shape
    assert canonical("vta -config=default") == "vta"
    assert canonical("vta -config=1x32x32") == "vta -config=1x32x32"
    assert hw_config(parse_target("vta -config=1x32x32")).block_in == 32


def test_config_file_target(tmp_path):
    doc = load_config("default").to_json()
    doc.update(NAME="fast", CLOCK_MHZ=200)
    path = tmp_path / "fast.json"
    path.write_text(json.dumps(doc))
    assert hw_config(parse_target(f"vta -config={path}")).clock_mhz == 200
    doc["LOG_BLOCK"] = 9
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(TargetError, match="'LOG_BLOCK' is 9"):
        parse_target(f"vta -config={tmp_path / 'bad.json'}")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("vta -config=2x8x8", "unknown VTA preset '2x8x8'"),
        ("vta -clock=200", "unknown option(s) -clock"),
        ("vta -config=/nonexistent/vta.json", "cannot read VTA config"),
    ],
)
def test_bad_vta_targets_name_the_option(text, message):
    with pytest.raises(TargetError) as err:
        parse_target(text)
    assert message in str(err.value)
    assert "vta [-config=" in str(err.value)  # the usage


def test_cli_refuses_a_bad_vta_target(capsys):
    argv = ["op", "conv2d_packed", "--target", "vta -config=nope", "-p", "data=1,16,4,4"]
    assert main(argv) == 2
    assert "--target: target 'vta -config=nope'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["tune", "--trials", "4", "--log", "x.jsonl"],
        ["compile", "-o", "x.tfa"],
        ["tasks"],
    ],
    ids=lambda a: a[0],
)
def test_network_commands_refuse_vta_up_front(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main([argv[0], "zoo:resnet-18", "--target", "vta", *argv[1:]]) == 2
    err = capsys.readouterr().err
    assert "--target 'vta': the vta backend runs networks quantized to int8 and packed" in err
    assert "--quantize int8" in err
    assert "Traceback" not in err


def test_task_errors_name_the_param():
    bad = conv_task((1, 24, 8, 8), (16, 24, 3, 3))
    with pytest.raises(ValueError, match="in_channels=24 is not a multiple"):
        registry.config_space(bad)
    with pytest.raises(ValueError, match="clip"):
        workload(conv_task((1, 16, 8, 8), (16, 16, 3, 3), clip=(0, 300)))


# -- the template through the registry --------------------------------------------------------
def test_space_and_default_are_the_tutorials():
    task = SMALL[0]
    space = registry.config_space(task)
    assert list(space.knobs) == list(KNOBS)
    default = registry.default_config(task)
    hw = hw_config(parse_target(task.target))
    assert check_config(workload(task), default.as_dict(), hw) is None


def sample(task: Task, count: int, seed: int) -> list[Config]:
    """The default config and `count` random configs that fit the buffers."""
    space = registry.config_space(task)
    hw = hw_config(parse_target(task.target))
    valid = valid_configs(workload(task), hw)
    picks = np.random.default_rng(seed).choice(len(valid), min(count, len(valid)), replace=False)
    configs = [registry.default_config(task)]
    return configs + [Config.make(valid[i], index=space.index_of(valid[i])) for i in picks]


def run_artifact(tmp_path, inp: MeasureInput, seed: int = 1):
    """What a measurement does with one candidate: generate its program, load it with the
    reference inputs, run it; returns (output, expected, kernel)."""
    src = registry.generate_source(inp)
    assert src.toolchain.compiler == ""  # the program is the artifact
    path = tmp_path / f"{inp.config.index}.vta.json"
    path.write_text(src.code)
    io = registry.reference_io(inp, seed)
    kernel = load_vta_kernel(str(path), io.args)
    assert kernel.run() == 0
    return kernel.outputs()[-1], io.expected[len(io.args) - 1], kernel


def check_bit_exact(tmp_path, task: Task, configs: list[Config]) -> None:
    for config in configs:
        got, want, _ = run_artifact(tmp_path, MeasureInput(task, config))
        assert got.dtype == np.int8
        assert np.array_equal(got, want), f"{config.as_dict()} differs from numpy"
    assert len(np.unique(want)) > 8  # the requantization leaves a spread of values


@pytest.mark.parametrize("task", SMALL, ids=range(len(SMALL)))
def test_small_shapes_bit_exact_through_the_registry(tmp_path, task):
    check_bit_exact(tmp_path, task, sample(task, 10, seed=4))


def test_larger_preset_bit_exact_through_the_registry(tmp_path):
    task = conv_task((1, 64, 7, 9), (64, 64, 3, 3), "vta -config=1x32x32", padding=1, shift=10)
    check_bit_exact(tmp_path, task, sample(task, 4, seed=2))


@pytest.mark.slow
@pytest.mark.parametrize("row", RESNET18_TASKS, ids=lambda r: "x".join(map(str, r[1:7])))
def test_resnet18_packed_convs_bit_exact(tmp_path, row):
    task = tutorial_task(row)
    check_bit_exact(tmp_path, task, sample(task, 10, seed=5))


def test_simulated_time_is_the_cycles_at_the_clock(tmp_path):
    task = SMALL[0]
    config = registry.default_config(task)
    _, _, kernel = run_artifact(tmp_path, MeasureInput(task, config))
    hw = hw_config(parse_target(task.target))
    lowered = lower_conv2d_packed(workload(task), config.as_dict(), hw)
    result, _ = simulate(lowered, Simulator(hw))
    assert kernel.time(1000) == pytest.approx(result.cycles / 100e6)


# -- measurement: run_op, error records, tuners ------------------------------------------------
def test_op_measures_by_simulation():
    task = SMALL[0]
    runs = run_op(task, sweep=5, settings=SETTINGS, seed=1)
    assert len(runs) == 6
    ok = [r for r in runs if r.ok]
    assert ok and runs[0].ok  # the default fits
    for r in ok:
        assert r.min_s == r.median_s  # simulated time: every repeat is the same
    hw = load_config("default")
    assert max(r.gflops_best for r in ok) <= hw.peak_gops


def test_a_config_that_overflows_is_an_error_record_naming_buffer_and_bytes():
    task = tutorial_task(RESNET18_TASKS[3])  # 56x56 64->64 3x3
    whole = {"tile_h": [1, 56], "tile_w": [1, 56], "tile_ci": [1, 4], "tile_co": [1, 4]}
    (run,) = run_op(task, [whole], settings=SETTINGS)
    assert run.error == "INSTANTIATION_ERROR"
    assert "does not fit the inp buffer: it needs" in run.error_msg
    assert "bytes" in run.error_msg and "32768" in run.error_msg


def test_the_cli_runs_a_sweep(capsys):
    argv = ["op", "conv2d_packed", "--target", "vta", "-p", "data=1,32,9,7"]
    argv += ["-p", "weight=32,32,3,3", "-p", "padding=1", "--sweep", "3", "--min-repeat-ms", "1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "conv2d_packed(data=[1, 32, 9, 7]" in out and "target=vta" in out
    assert "best: #" in out


@pytest.mark.parametrize("tuner", ["xgb", "ga", "random", "gridsearch"])
def test_every_tuner_tunes_a_packed_conv(tuner):
    from tunefarm.tune.factory import make_tuner
    from tunefarm.tune.tuner import MeasureOption

    task = conv_task((1, 32, 14, 14), (32, 32, 3, 3), padding=1)
    tuner = make_tuner(tuner, task, seed=0)
    option = MeasureOption.local(SETTINGS, n_parallel=2, kind="vta")
    try:
        summary = tuner.tune(24, option, batch_size=8)
    finally:
        option.close()
    assert summary.trials == 24
    assert np.isfinite(tuner.best_cost)
    if not tuner.default_first:  # a grid search walks the space in order
        return
    default = registry.default_config(task)
    hw = hw_config(parse_target(task.target))
    lowered = lower_conv2d_packed(workload(task), default.as_dict(), hw)
    result, _ = simulate(lowered, Simulator(hw))
    assert tuner.best_cost <= hw.seconds(result.cycles)  # the default is measured first


@pytest.mark.parametrize(
    ("generator", "error", "reason"),
    [
        ("deadlocking_source", "DEADLOCK", "compute module blocked at instruction"),
        ("overflowing_source", "SRAM_OVERFLOW", "beyond its depth"),
    ],
)
def test_a_faulty_program_is_a_runtime_error_record_with_the_reason(generator, error, reason):
    import vta_programs

    from tunefarm.measure import LocalBuilder

    task = SMALL[0]
    inp = MeasureInput(task, registry.default_config(task))
    with LocalBuilder(getattr(vta_programs, generator), n_parallel=1) as builder:
        (build,) = builder.build([inp])
    assert build.ok, build.error_msg
    with registry.local_runner(SETTINGS, "vta") as runner:
        (result,) = runner.run([inp], [build])
    assert result.error_no == MeasureErrorNo.RUNTIME_ERROR
    assert f"VTA simulator: {error}" in result.error_msg
    assert reason in result.error_msg and "instruction" in result.error_msg


def test_tune_tasks_tunes_resnet18s_packed_convs(tmp_path, capsys):
    """The tutorial's task list through `tunefarm tune-tasks`: the task scheduler's table,
    records in the log, a valid best for the tasks it reached."""
    log = tmp_path / "vta.jsonl"
    argv = ["tune-tasks", "examples/resnet18_vta_tasks.json", "--target", "vta"]
    argv += ["--trials", "24", "--trials-per-round", "8", "--batch-size", "8"]
    argv += ["--min-repeat-ms", "0", "--repeat", "1", "--log", str(log), "--json"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["tasks"]) == 10
    reached = [t for t in doc["tasks"] if t["trials"]]
    assert reached and all(t["best_latency_s"] for t in reached)
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(records) == 24
    assert all(r["target"] == "vta" and r["task"]["op"] == "conv2d_packed" for r in records)
