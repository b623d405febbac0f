"""The conv2d template's reduction in passes (`ic_passes`): each pass adds a slice of the
input channels into a per-block output map, so a slice's weights and input planes stay in
cache for the whole map. Every config is checked against the numpy reference; the default's
choice is checked on pinned ISAs and core counts (no host dependence)."""

from __future__ import annotations

import pytest
from test_user_model_kernels import run_checked  # every config against the numpy oracle

from tunefarm.backends import registry
from tunefarm.measure import Config
from tunefarm.task import Task


def conv(target: str, **kw) -> Task:
    return Task.make("conv2d", target=target, **kw)


CASES = [
    # 3x3, padded, with every epilogue input
    dict(
        data=(1, 64, 10, 10), weight=(32, 64, 3, 3), padding=1,
        epilogue=("bias", "residual", "relu"),
    ),
    # dilated 3x3 (fcn_resnet50's layers 3-4), no epilogue: the accumulator is a cache stage
    dict(data=(1, 64, 12, 12), weight=(32, 64, 3, 3), padding=2, dilation=2),
    # strided 1x1, bias
    dict(data=(1, 64, 14, 14), weight=(32, 64, 1, 1), strides=2, epilogue=("bias",)),
]  # fmt: skip


@pytest.mark.parametrize("target", ["cpu -cores=1", "cpu -isa=avx2 -cores=2"])
@pytest.mark.parametrize("params", CASES)
def test_reduction_passes_against_numpy(tmp_path, target: str, params: dict) -> None:
    """2 and 4 passes of 32- or 16-channel slices, several tiles, both loop orders and
    inline padding; the one-pass default is the control."""
    task = conv(target, blocks=(16, 16), **params)
    base = registry.default_config(task).as_dict()
    ow = task.args["data"][3] // task.args.get("strides", 1)
    variants = [
        dict(ic_passes=2),
        dict(ic_passes=4, tile_oc=(1, 2, 16), order="icb_outer", unroll_kw=False),
        dict(ic_passes=4, tile_ow=(ow, 1)),
    ]
    if "pad" in base:
        variants.append(dict(ic_passes=2, pad="inline"))
    configs = [Config.make(dict(base, ic_passes=1))]
    configs += [Config.make(dict(base, **v)) for v in variants]
    run_checked(tmp_path, task, configs)


def test_passes_that_do_not_divide_the_blocks(tmp_path) -> None:
    """96 channels in 6 blocks of 16: 4 passes run as gcd(4, 6) = 2; the space offers only
    passes of at least 16 channels (1, 2, 4: not 8 of 12)."""
    task = conv(
        "cpu -cores=1", data=(1, 96, 6, 6), weight=(32, 96, 3, 3), padding=1, blocks=(16, 16)
    )
    assert list(registry.config_space(task).knobs["ic_passes"].entities) == [1, 2, 4]
    base = registry.default_config(task).as_dict()
    run_checked(tmp_path, task, [Config.make(dict(base, ic_passes=4))])


FCN_HEAD = dict(data=(1, 2048, 28, 28), weight=(512, 2048, 3, 3), padding=1, blocks=(16, 16))
FCN_1X1 = dict(data=(1, 2048, 28, 28), weight=(512, 2048, 1, 1), blocks=(16, 16))


def default(target: str, params: dict) -> dict:
    return registry.default_config(conv(target, **params)).as_dict()


def test_default_passes_on_long_reductions() -> None:
    """fcn_resnet50's 2048-channel convs on AVX-512 and one core: 128-channel passes (16),
    28 accumulators (7 x 4 with a kernel window, 14 x 2 for 1x1)."""
    head = default("cpu -isa=avx512 -cores=1", FCN_HEAD)
    assert head["ic_passes"] == 16
    assert (head["tile_ow"][1], head["tile_oc"][1]) == (7, 4)
    one = default("cpu -isa=avx512 -cores=1", FCN_1X1)
    assert one["ic_passes"] == 16
    assert (one["tile_ow"][1], one["tile_oc"][1]) == (14, 2)


@pytest.mark.parametrize(
    "target, params",
    [
        ("cpu -isa=avx512 -cores=1", dict(FCN_HEAD, data=(1, 64, 28, 28), weight=(512, 64, 3, 3))),
        ("cpu -isa=avx512 -cores=1", dict(FCN_1X1, data=(1, 2048, 56, 56))),  # map too big
        ("cpu -isa=avx512 -cores=16", FCN_HEAD),  # 8 output tiles cannot feed 16 cores
        ("cpu -isa=avx2 -cores=1", FCN_HEAD),  # 16 registers: the one-pass tiles, unmeasured
    ],
)
def test_default_keeps_one_pass(target: str, params: dict) -> None:
    """A short reduction, a map past MAX_MAP_BYTES, too few output tiles for the cores and
    a 16-register ISA keep the one-pass schedule."""
    assert default(target, params)["ic_passes"] == 1


def test_space_offers_no_passes_past_the_stack_map() -> None:
    """A 112 x 112 map in 4 blocks of 16 would be a 3.2 MB stack array per thread: the
    space keeps one pass; at 28 x 28 it offers 2-32 passes of 2048 channels."""
    big = conv("cpu -isa=avx512", **dict(FCN_1X1, data=(1, 2048, 112, 112)))
    assert list(registry.config_space(big).knobs["ic_passes"].entities) == [1]
    rgb = conv("cpu -isa=avx512", data=(1, 3, 16, 16), weight=(16, 3, 3, 3), padding=1)
    assert list(registry.config_space(rgb).knobs["ic_passes"].entities) == [1]  # under 16
    fcn = conv("cpu -isa=avx512", **FCN_1X1)
    assert list(registry.config_space(fcn).knobs["ic_passes"].entities) == [1, 2, 4, 8, 16, 32]
