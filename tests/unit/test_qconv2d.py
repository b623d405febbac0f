"""int8 conv2d (`conv2d_int8`): real compiled kernels, bit-exact against the numpy int32
reference, on every dot4 path this host can run. The AVX2 pmaddwd path runs on any x86-64
host with AVX2 (the non-VNNI path is tested everywhere); AVX-512BW and VNNI where the host's
flags have them, and compiled (not run) everywhere else."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from tunefarm.backends import get_backend, parse_target, registry
from tunefarm.backends.cpu.target import host_flags
from tunefarm.measure import MeasureInput, MeasureSettings
from tunefarm.oprun import run_op
from tunefarm.task import Task, TaskError

QUICK = MeasureSettings(repeat=1, min_repeat_ms=1)
FLAGS = host_flags()
DOT4_ISAS = {"avx2": "avx2", "avx512": "avx512bw", "avx512vnni": "avx512_vnni"}  # isa: flag
# the ISAs this host runs (CI hosts differ: AVX2-only or AVX-512 with VNNI); every ISA's
# kernels are still compiled on every host (test_int8_kernels_compile_for_every_isa)
ISAS = [isa for isa, flag in DOT4_ISAS.items() if flag in FLAGS] + ["generic"]  # scalar dot4

CASES = {
    # odd channels (C=5 padded to 8, O=12), stride 2, padding, zero points, ReLU
    "odd_s2_pad": dict(
        data=(1, 5, 9, 11),
        weight=(12, 5, 3, 3),
        strides=2,
        padding=1,
        data_zero_point=7,
        bias=True,
        out_zero_point=-3,
        relu=True,
    ),
    # uint8 out, a residual add with its own scales and zero points, asymmetric padding
    "residual_uint8": dict(
        data=(2, 16, 7, 7),
        weight=(32, 16, 3, 3),
        padding=(1, 0, 1, 2),
        data_zero_point=128,
        out_dtype="uint8",
        out_zero_point=100,
        residual=[0.05, 0.04, 0.07, 90, 110],
        relu=True,
    ),
    # ReLU6 in the quantized domain: an upper clip at out_max
    "relu6_out_max": dict(
        data=(1, 8, 6, 6),
        weight=(16, 8, 3, 3),
        padding=1,
        data_zero_point=2,
        bias=True,
        out_dtype="uint8",
        out_zero_point=20,
        relu=True,
        out_max=200,
    ),
    # 1x1, plain int32 accumulator output
    "pointwise_int32": dict(data=(1, 32, 6, 6), weight=(16, 32, 1, 1), data_zero_point=255),
    # RGB stem: 3 input channels, stride 2, 7x7
    "stem_7x7": dict(data=(1, 3, 20, 20), weight=(16, 3, 7, 7), strides=2, padding=3, bias=True),
    # dilation 2, 13 input channels (padded to 16), a QDQ model's Conv -> Q -> DQ ->
    # LeakyRelu -> Q as one requantizing epilogue
    "dilated_leaky_relu": dict(
        data=(1, 13, 12, 12),
        weight=(28, 13, 3, 3),
        padding=2,
        dilation=2,
        data_zero_point=7,
        bias=True,
        out_dtype="uint8",
        out_zero_point=90,
        activation=["leaky_relu:0.1", 0.05, 120, 0.03],
    ),
    # Conv -> HardSwish -> Q: the activation on the accumulator's own scale, no rounding first
    "hard_swish_unrounded": dict(
        data=(1, 8, 9, 9),
        weight=(16, 8, 3, 3),
        padding=1,
        data_zero_point=3,
        bias=True,
        out_dtype="uint8",
        out_zero_point=40,
        activation=["hard_swish", 0.0, 0, 0.05],
    ),
    # QLinearAdd's float rounding fused, the residual as the Add's first operand
    "float_residual": dict(
        data=(1, 16, 7, 7),
        weight=(16, 16, 1, 1),
        data_zero_point=5,
        out_dtype="uint8",
        out_zero_point=100,
        residual=[0.05, 0.04, 0.07, 90, 110],
        residual_rule="float",
        residual_first=True,
    ),
}
# the kernel's exp is a 2-ulp polynomial: one quantization step off numpy is allowed
SIGMOID = dict(
    data=(1, 8, 9, 9),
    weight=(16, 8, 3, 3),
    padding=1,
    bias=True,
    out_dtype="uint8",
    out_zero_point=0,
    activation=["sigmoid", 0.04, 128, 1 / 255],
)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_conv2d_int8_is_bit_exact(name: str, isa: str) -> None:
    task = Task.make("conv2d_int8", target=f"cpu -isa={isa}", **CASES[name])
    runs = run_op(task, sweep=2, settings=QUICK, seed=1)
    for run in runs:
        assert run.ok, (run.values, run.error_msg)


@pytest.mark.parametrize("isa", ISAS)
def test_sigmoid_epilogue_within_one_step(isa: str) -> None:
    task = Task.make("conv2d_int8", target=f"cpu -isa={isa}", **SIGMOID)
    one_step = MeasureSettings(repeat=1, min_repeat_ms=1, rtol=0.0, atol_rel=1.5 / 255)
    for run in run_op(task, sweep=2, settings=one_step, seed=1):
        assert run.ok, (run.values, run.error_msg)


@pytest.mark.parametrize("name", ["dilated_leaky_relu", "hard_swish_unrounded"])
def test_activation_reference_spans_the_grid(name: str) -> None:
    """The activation cases are not all saturated: the oracle's outputs spread over the
    uint8 grid (LeakyRelu's negative side included), so a wrong epilogue would show."""
    task = Task.make("conv2d_int8", **CASES[name])
    io = registry.reference_io(MeasureInput(task, registry.default_config(task)), seed=0)
    out = io.expected[len(io.args) - 1]
    assert len(np.unique(out)) > 40
    assert (out < CASES[name]["out_zero_point"]).mean() > 0.02


@pytest.mark.parametrize(
    "isa, marker",
    [
        ("avx512vnni", "_mm512_dpbusd_epi32"),
        ("avx512", "_mm512_madd_epi16"),
        ("avx2", "_mm256_madd_epi16"),
    ],
)
def test_dot4_maps_to_the_isa(isa: str, marker: str) -> None:
    task = Task.make("conv2d_int8", target=f"cpu -isa={isa}", **CASES["residual_uint8"])
    code = registry.generate_source(MeasureInput(task, registry.default_config(task))).code
    assert marker in code
    assert "pmaddubs" not in code and "maddubs" not in code  # it would saturate


def test_reference_saturates_at_both_ends() -> None:
    task = Task.make("conv2d_int8", **{**CASES["odd_s2_pad"], "relu": False})
    io = registry.reference_io(MeasureInput(task, registry.default_config(task)), seed=0)
    out = io.expected[len(io.args) - 1]
    assert out.dtype == np.int8 and out.min() == -128 and out.max() == 127


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(data_zero_point=256), "'data_zero_point' must be an int in [0, 255]"),
        (dict(out_zero_point=-129), "'out_zero_point' must be an int in [-128, 127]"),
        (dict(out_dtype="int16"), "'out_dtype' must be one of"),
        (dict(residual=[0.1, 0.1]), "'residual' must be [s_y, s_r, s_out, z_r, z_out]"),
        (dict(residual=[0.1, -0.1, 0.1, 0, 0]), "positive"),
        (dict(blocks=[6, 16]), "ib must be a multiple of 4"),
        (dict(out_dtype="uint8", activation=["tanh", 0, 0, 1]), "use leaky_relu:ALPHA"),
        (dict(out_dtype="uint8", activation=["sigmoid", 0.1, 0]), "'activation' must be"),
        (dict(residual=[0.1, 0.1, 0.1, 0, 0], residual_rule="max"), "'residual_rule' must"),
    ],
)
def test_bad_int8_conv_params_name_the_param(params: dict, message: str) -> None:
    task = Task.make("conv2d_int8", data=(1, 16, 8, 8), weight=(16, 16, 3, 3), **params)
    with pytest.raises(TaskError) as info:
        registry.config_space(task)
    assert message in str(info.value)


DENSE = {
    "dense_relu": dict(data=(2, 72), weight=(48, 72), data_zero_point=9, bias=True, relu=True),
    "dense_odd_int32": dict(data=(1, 13), weight=(7, 13), data_zero_point=200),
}
DEPTHWISE = {
    "dw_s2_pad": dict(
        data=(1, 32, 11, 11),
        weight=(32, 1, 3, 3),
        strides=2,
        padding=1,
        data_zero_point=5,
        bias=True,
        out_zero_point=4,
        relu=True,
    ),
    # dilation 2, LeakyRelu and a float-rule residual in one epilogue
    "dw_dilated_act_residual": dict(
        data=(1, 16, 10, 10),
        weight=(16, 1, 3, 3),
        padding=2,
        dilation=2,
        data_zero_point=5,
        bias=True,
        out_dtype="uint8",
        out_zero_point=100,
        activation=["leaky_relu:0.2", 0.05, 110, 0.04],
        residual=[0.04, 0.04, 0.07, 90, 110],
        residual_rule="float",
    ),
    "dw_odd_uint8": dict(
        data=(1, 6, 7, 7),
        weight=(6, 1, 3, 3),
        padding=1,
        data_zero_point=128,
        out_dtype="uint8",
        out_zero_point=128,
    ),
}


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("name", sorted(DENSE))
def test_dense_int8_is_bit_exact(name: str, isa: str) -> None:
    task = Task.make("dense_int8", target=f"cpu -isa={isa}", **DENSE[name])
    for run in run_op(task, sweep=2, settings=QUICK, seed=2):
        assert run.ok, (run.values, run.error_msg)


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("name", sorted(DEPTHWISE))
def test_depthwise_int8_is_bit_exact(name: str, isa: str) -> None:
    task = Task.make("depthwise_conv2d_int8", target=f"cpu -isa={isa}", **DEPTHWISE[name])
    for run in run_op(task, sweep=2, settings=QUICK, seed=3):
        assert run.ok, (run.values, run.error_msg)


def test_depthwise_int8_widens_bytes_in_vectors() -> None:
    task = Task.make("depthwise_conv2d_int8", target="cpu -isa=avx512", **DEPTHWISE["dw_s2_pad"])
    code = registry.generate_source(MeasureInput(task, registry.default_config(task))).code
    assert "__builtin_convertvector" in code


@pytest.mark.parametrize("isa", sorted(DOT4_ISAS))
def test_int8_kernels_compile_for_every_isa(isa: str, tmp_path) -> None:
    """A host runs only its own ISAs' kernels (above); every ISA's still compiles with gcc."""
    target = parse_target(f"cpu -isa={isa}")
    ops = {"conv2d_int8": CASES, "dense_int8": DENSE, "depthwise_conv2d_int8": DEPTHWISE}
    for op, cases in ops.items():
        for name, params in cases.items():
            task = Task.make(op, target=f"cpu -isa={isa}", **params)
            src = tmp_path / f"{name}.c"
            src.write_text(
                registry.generate_source(MeasureInput(task, registry.default_config(task))).code
            )
            command = (
                get_backend("cpu").toolchain(target).command(str(src), str(src.with_suffix(".so")))
            )
            subprocess.run(command, check=True, capture_output=True)
