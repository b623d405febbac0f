"""conv2d_packed on VTA: bit-exact against numpy at the default and random configs, the knob
space and its pruning, and the cycle model's sanity on resnet-18's layers."""

import numpy as np
import pytest

from tunefarm.backends.vta import reference
from tunefarm.backends.vta.config import load_config
from tunefarm.backends.vta.conv2d import (
    conv2d_packed_reference,
    lower_conv2d_packed,
    random_inputs,
    simulate,
)
from tunefarm.backends.vta.conv2d_space import (
    KNOBS,
    Conv2dWorkload,
    FitError,
    check_config,
    config_space,
    default_config,
    valid_configs,
)
from tunefarm.backends.vta.simulator import Simulator

HW = load_config("default")

SMALL = [
    # odd sizes, 3x3, padding 1, stride 1; symmetric int8 clip to see every output bit
    Conv2dWorkload(1, 32, 9, 7, 32, 3, 3, 1, 1, 1, 1, 1, 1, shift=9, clip_lo=-128),
    # stride 2 with asymmetric padding and an odd-sized kernel window
    Conv2dWorkload(1, 48, 11, 13, 16, 3, 3, 2, 2, 0, 1, 2, 1, shift=10, clip_lo=-128),
    # the tutorial's requantization (>> 8, clip to [0, 127]), a 1x1 stride-2 conv
    Conv2dWorkload(1, 64, 10, 10, 32, 1, 1, 2, 2),
    # two images: tile_b has choices
    Conv2dWorkload(2, 16, 5, 5, 32, 3, 3, 1, 1, 1, 1, 1, 1, shift=8, clip_lo=-128),
    # padding larger than the kernel: whole input tiles lie in the padding
    Conv2dWorkload(1, 16, 3, 3, 16, 1, 1, 1, 1, 2, 2, 2, 2, shift=4, clip_lo=-128),
]
RESNET = [
    Conv2dWorkload.from_tutorial((1, 56, 56, 64, 64, 3, 3, 1, 1, 1, 1), shift=11, clip_lo=-128),
    Conv2dWorkload.from_tutorial((1, 28, 28, 128, 128, 3, 3, 1, 1, 1, 1), shift=11, clip_lo=-128),
]


@pytest.fixture(scope="module")
def sim():
    return Simulator(HW)


def sample_configs(wl, hw, count, seed):
    """The default config and `count` distinct random valid configs."""
    space = valid_configs(wl, hw)
    picks = np.random.default_rng(seed).choice(len(space), min(count, len(space)), replace=False)
    return [default_config(wl, hw)] + [space[i] for i in picks]


def check_bit_exact(sim, wl, configs, hw=HW):
    data, weight = random_inputs(wl, hw, seed=7)
    want = conv2d_packed_reference(data, weight, wl)
    assert len(np.unique(want)) > 8  # the requantization leaves a spread of values
    for knobs in configs:
        result, got = simulate(lower_conv2d_packed(wl, knobs, hw), sim, data, weight)
        assert result.ok, f"{knobs}: {result.error_msg}"
        assert np.array_equal(got, want), f"{knobs} differs from numpy"
        assert result.gemm_uops * hw.macs_per_cycle * 2 == wl.ops


@pytest.mark.parametrize("wl", SMALL, ids=range(len(SMALL)))
def test_small_shapes_bit_exact(sim, wl):
    check_bit_exact(sim, wl, sample_configs(wl, HW, 10, seed=1))


def test_every_valid_config_of_a_small_space_runs(sim):
    wl = Conv2dWorkload(2, 32, 6, 6, 32, 3, 3, 1, 1, 1, 1, 1, 1, shift=9, clip_lo=-128)
    configs = valid_configs(wl, HW)
    assert len(configs) > 200  # fits all buffers; only thread counts that do not divide fail
    check_bit_exact(sim, wl, configs)


def test_lowered_program_on_the_numpy_model():
    """The instruction-level oracle agrees with the op-level one (program order execution)."""
    wl = SMALL[1]
    knobs = {**default_config(wl, HW), "tile_co": (1, 1), "tile_h": (2, 3), "oc_nthread": 1}
    lowered = lower_conv2d_packed(wl, knobs, HW)
    data, weight = random_inputs(wl, HW, seed=3)
    dram = lowered.dram(data, weight)
    reference.run_program(HW, lowered.insns, dram)
    assert np.array_equal(lowered.output(dram), conv2d_packed_reference(data, weight, wl))


def test_reference_against_a_direct_convolution():
    wl = SMALL[1]
    data, weight = random_inputs(wl, HW, seed=5)
    x = data.transpose(0, 4, 1, 5, 2, 3).reshape(1, 48, 11, 13).astype(np.int64)
    k = weight.transpose(0, 4, 1, 5, 2, 3).reshape(16, 48, 3, 3).astype(np.int64)
    x = np.pad(x, ((0, 0), (0, 0), (0, 2), (1, 1)))
    oh, ow = wl.out_height, wl.out_width
    acc = np.zeros((16, oh, ow), dtype=np.int64)
    for dy in range(3):
        for dx in range(3):
            win = x[0, :, dy : dy + 2 * oh : 2, dx : dx + 2 * ow : 2]
            acc += np.einsum("chw,oc->ohw", win, k[:, :, dy, dx])
    want = np.clip(acc >> 10, -128, 127).astype(np.int8)
    got = conv2d_packed_reference(data, weight, wl)
    assert np.array_equal(got.transpose(0, 1, 4, 5, 2, 3).reshape(16, oh, ow), want)


def test_larger_preset_bit_exact():
    hw = load_config("1x32x32")
    wl = Conv2dWorkload(1, 64, 7, 9, 64, 3, 3, 1, 1, 1, 1, 1, 1, shift=10, clip_lo=-128)
    check_bit_exact(Simulator(hw), wl, sample_configs(wl, hw, 4, seed=2), hw)


@pytest.mark.slow
@pytest.mark.parametrize("wl", RESNET, ids=["56x56x64", "28x28x128"])
def test_resnet18_layers_bit_exact(sim, wl):
    check_bit_exact(sim, wl, sample_configs(wl, HW, 10, seed=3))


# -- the space --------------------------------------------------------------------------------
def test_space_has_the_tutorial_knobs():
    wl = RESNET[0]
    space = config_space(wl, HW)
    assert list(space.knobs) == list(KNOBS)
    assert space.knobs["oc_nthread"].entities == (1, 2)
    assert (56, 1) in space.knobs["tile_h"].entities and (1, 4) in space.knobs["tile_ci"].entities
    valid = valid_configs(wl, HW)
    assert 0 < len(valid) < space.size
    assert all(space.index_of(k) >= 0 for k in valid)
    assert check_config(wl, default_config(wl, HW), HW) is None


def test_a_config_that_does_not_fit_names_the_buffer_and_bytes():
    wl = RESNET[0]
    knobs = {**default_config(wl, HW), "tile_h": (1, 56), "tile_w": (1, 56), "tile_ci": (1, 4)}
    knobs.update(oc_nthread=1, h_nthread=1)
    with pytest.raises(FitError) as err:
        lower_conv2d_packed(wl, knobs, HW)
    need = 4 * 58 * 58 * 16
    assert str(err.value) == (
        f"conv2d_packed config does not fit the inp buffer: it needs {need} bytes (1 thread(s) "
        f"x {4 * 58 * 58} elements x 16 bytes), the default config has 32768"
    )
    assert (err.value.buffer, err.value.needed, err.value.available) == ("inp", need, 32768)


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"tile_h": (3, 19)}, "does not split extent 56"),
        ({"oc_nthread": 2, "tile_co": (1, 4)}, "virtual threads"),
        ({"h_nthread": 3}, "must be in"),
    ],
)
def test_invalid_configs(patch, message):
    wl = RESNET[0]
    with pytest.raises(FitError, match=message):
        lower_conv2d_packed(wl, {**default_config(wl, HW), **patch}, HW)
    knobs = default_config(wl, HW)
    del knobs["tile_w"]
    assert "lacks knob(s) ['tile_w']" in check_config(wl, knobs, HW)


def test_workload_must_match_the_blocks():
    with pytest.raises(ValueError, match="in_channels=24 is not a multiple"):
        config_space(Conv2dWorkload(1, 24, 8, 8, 16, 3, 3), HW)


# -- cycles ---------------------------------------------------------------------------------
def timing(sim, wl, knobs):
    result, _ = simulate(lower_conv2d_packed(wl, knobs, HW), sim)
    assert result.ok, result.error_msg
    return result


def test_virtual_threads_hide_dma_latency(sim):
    """7x7 512->512 moves 2.4 MB of weights for 0.45M GEMM cycles: with one thread loads and
    GEMMs alternate, with two they overlap."""
    wl = Conv2dWorkload.from_tutorial((1, 7, 7, 512, 512, 3, 3, 1, 1, 1, 1))
    one = {
        "tile_b": (1, 1),
        "tile_h": (1, 7),
        "tile_w": (1, 7),
        "tile_ci": (16, 2),
        "tile_co": (16, 2),
        "oc_nthread": 1,
        "h_nthread": 1,
    }
    single, double = timing(sim, wl, one), timing(sim, wl, {**one, "oc_nthread": 2})
    assert double.cycles < 0.7 * single.cycles
    assert single.cycles >= 0.95 * (single.busy["load"] + single.busy["compute"])
    assert double.cycles < 0.8 * (double.busy["load"] + double.busy["compute"])


def test_gemm_bound_layer_approaches_the_peak(sim):
    wl = RESNET[1]
    knobs = {
        "tile_b": (1, 1),
        "tile_h": (2, 14),
        "tile_w": (2, 14),
        "tile_ci": (4, 2),
        "tile_co": (4, 2),
        "oc_nthread": 2,
        "h_nthread": 2,
    }
    result = timing(sim, wl, knobs)
    gops = wl.ops / HW.seconds(result.cycles) / 1e9
    assert gops > 0.9 * HW.peak_gops and result.share("compute") > 0.98
    assert result.cycles >= result.gemm_uops  # never above the peak


def test_tiny_tiles_are_dma_bound(sim):
    wl = RESNET[1]
    knobs = {
        "tile_b": (1, 1),
        "tile_h": (28, 1),
        "tile_w": (28, 1),
        "tile_ci": (8, 1),
        "tile_co": (8, 1),
        "oc_nthread": 1,
        "h_nthread": 1,
    }
    result = timing(sim, wl, knobs)
    assert result.share("load") > 0.9 and result.cycles > 10 * result.gemm_uops


def test_survey_of_one_layer(sim, capsys):
    from tunefarm.backends.vta import survey

    assert len(survey.resnet18_3x3()) == 7
    row = survey.survey_layer(SMALL[0], HW, sim, 3, np.random.default_rng(0))
    assert row["best"].ok and row["default"].ok and row["best"].cycles < row["fallback"]
    stats = survey.print_row(row, HW)
    assert 0 < stats["efficiency"] <= 1 and "best {" in capsys.readouterr().out
