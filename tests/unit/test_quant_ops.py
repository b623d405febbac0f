"""Quantized elementwise ops (quantize, dequantize, requantize, int8 add): real compiled
kernels, checked bit for bit against the numpy oracles (`ArgSpec.exact`), on random integer
inputs over their dtypes' full ranges, so both ends saturate."""

from __future__ import annotations

import numpy as np
import pytest

from tunefarm.backends import registry
from tunefarm.ir import quant_reference as QR
from tunefarm.ir.ops.quantize import add_multipliers
from tunefarm.measure import Config, MeasureInput, MeasureSettings
from tunefarm.oprun import run_op
from tunefarm.task import Task, TaskError

QUICK = MeasureSettings(repeat=1, min_repeat_ms=1)
SHAPE = [2, 5, 7, 3]

TASKS = {
    "quantize_int8": Task.make("quantize", shape=SHAPE, dtype="int8", scale=0.03, zero_point=3),
    "quantize_uint8_per_channel": Task.make("quantize", shape=SHAPE, dtype="uint8", axis=1),
    "dequantize_uint8": Task.make(
        "dequantize", shape=SHAPE, dtype="uint8", scale=0.03, zero_point=128
    ),
    "dequantize_int8_per_channel": Task.make("dequantize", shape=SHAPE, dtype="int8", axis=-1),
    "requantize_int8_per_channel": Task.make("requantize", shape=SHAPE, dtype="int8", axis=1),
    "requantize_uint8": Task.make(
        "requantize", shape=SHAPE, dtype="uint8", scale=0.004, zero_point=7
    ),
    "qadd_int8": Task.make(
        "qadd", shape=SHAPE, dtype="int8", scales=[0.1, 0.05, 0.12], zero_points=[1, -3, 5]
    ),
    "qadd_uint8": Task.make(
        "qadd", shape=SHAPE, dtype="uint8", scales=[0.02, 0.3, 0.04], zero_points=[128, 0, 90]
    ),
    "qadd_uint8_float_rule": Task.make(
        "qadd",
        shape=SHAPE,
        dtype="uint8",
        scales=[0.02, 0.3, 0.04],
        zero_points=[128, 0, 90],
        rule="float",
    ),
    "dequantize_int32": Task.make("dequantize", shape=SHAPE, dtype="int32", scale=0.25),
}


@pytest.mark.parametrize("name", sorted(TASKS))
def test_quant_op_is_bit_exact(name: str) -> None:
    task = TASKS[name]
    runs = run_op(task, [{"parallel": True, "vectorize": True}], sweep=1, settings=QUICK)
    for run in runs:
        assert run.ok, (run.values, run.error_msg)


@pytest.mark.parametrize("name", sorted(TASKS))
def test_quant_reference_data_is_integer_and_saturates(name: str) -> None:
    task = TASKS[name]
    inp = MeasureInput(task, registry.default_config(task))
    io = registry.reference_io(inp, seed=0)
    src = registry.generate_source(inp)
    assert src.arg_specs[-1].exact
    out = io.expected[len(io.args) - 1]
    if task.op != "dequantize":
        info = np.iinfo(out.dtype)
        assert out.dtype == np.dtype(task.args["dtype"])
        if task.op != "qadd":  # random wide inputs reach both ends
            assert out.min() == info.min and out.max() == info.max


def test_wrong_answer_is_caught_exactly() -> None:
    """An off-by-one integer output is a wrong answer (no tolerance for exact outputs)."""
    from tunefarm.measure.child import check_outputs

    task = TASKS["requantize_uint8"]
    inp = MeasureInput(task, registry.default_config(task))
    io, src = registry.reference_io(inp, 0), registry.generate_source(inp)
    pos = len(io.args) - 1
    good = io.expected[pos].copy()
    outs = [*io.args[:-1], good]
    assert check_outputs(outs, io.expected, src.arg_specs, 1e-4, 1e-4) is None
    bad = good.copy()
    bad.flat[5] = bad.flat[5] ^ 1
    msg = check_outputs([*io.args[:-1], bad], io.expected, src.arg_specs, 1e-4, 1e-4)
    assert msg and "exact reference" in msg


def test_rounding_is_half_to_even_and_saturating() -> None:
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 1000.0, -1000.0], np.float32)
    assert QR.quantize(x, 1.0, 0, "int8").tolist() == [0, 2, 2, 0, -2, 127, -128]
    assert QR.quantize(x, 1.0, 10, "uint8").tolist() == [10, 12, 12, 10, 8, 255, 0]
    acc = np.array([[5, 15, 25, -5, 10**6, -(10**6)]], np.int32)
    assert QR.requantize(acc, 0.1, 0, "int8").tolist() == [[0, 2, 2, 0, 127, -128]]


def test_add_multipliers_fit_int32() -> None:
    ma, mb, shift = add_multipliers(0.5, 0.01, 0.001)
    assert max(ma, mb) < 2**22 and shift >= 0
    assert abs(ma / 2**shift - 500) < 1e-3


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(op="quantize", scale=0.0), "'scale' must be positive"),
        (dict(op="quantize", scale=-1.0), "'scale' must be positive"),
        (dict(op="quantize", zero_point=200), "'zero_point' must be an int in [-128, 127]"),
        (dict(op="dequantize", dtype="uint8", zero_point=-1), "in [0, 255]"),
        (dict(op="requantize", axis=4), "'axis' must be an int in [-4, 3]"),
        (dict(op="quantize", dtype="int4"), "'dtype' must be one of"),
        (dict(op="qadd", scales=[1, 1], zero_points=[0, 0, 0]), "'scales' must be [a, b, out]"),
        (dict(op="qadd", scales=[1e9, 1, 1e-9], zero_points=[0, 0, 0]), "too large"),
    ],
)
def test_bad_quant_params_name_the_param(params: dict, message: str) -> None:
    op = params.pop("op")
    task = Task.make(op, shape=SHAPE, **params)
    with pytest.raises(TaskError, match=None) as info:
        registry.config_space(task)
        registry.template(task).logical_inputs(task)
    assert message in str(info.value)


def test_quant_op_emits_nearbyint() -> None:
    task = TASKS["quantize_int8"]
    inp = MeasureInput(task, Config.make(registry.default_config(task).as_dict()))
    assert "nearbyintf" in registry.generate_source(inp).code
