"""VTA hardware configuration: presets, derived quantities, JSON and errors naming the field."""

import json

import pytest

from tunefarm.backends.vta.config import (
    ConfigError,
    VTAConfig,
    load_config,
    preset_names,
)


def test_default_preset_matches_vta_json():
    cfg = load_config("default")
    assert (cfg.log_inp_width, cfg.log_wgt_width, cfg.log_acc_width) == (3, 3, 5)
    assert (cfg.batch, cfg.block_in, cfg.block_out) == (1, 16, 16)
    assert [cfg.buffer_bytes(b) for b in ("uop", "inp", "wgt", "acc")] == [
        32 << 10,
        32 << 10,
        256 << 10,
        128 << 10,
    ]
    assert cfg.bus_bytes == 8 and cfg.clock_mhz == 100
    assert cfg == VTAConfig()  # the dataclass defaults are the default preset


def test_derived_quantities():
    cfg = load_config("default")
    assert [cfg.elem_bytes(b) for b in ("uop", "inp", "wgt", "acc", "out")] == [4, 16, 256, 64, 16]
    assert [cfg.depth(b) for b in ("uop", "inp", "wgt", "acc", "out")] == [
        8192,
        2048,
        1024,
        2048,
        2048,
    ]
    assert cfg.macs_per_cycle == 256
    assert cfg.peak_gops == pytest.approx(51.2)
    assert cfg.seconds(100) == pytest.approx(1e-6)


def test_larger_preset():
    assert {"default", "1x32x32"} <= set(preset_names())
    cfg = load_config("1x32x32")
    assert (cfg.batch, cfg.block_in, cfg.block_out) == (1, 32, 32)
    assert cfg.peak_gops == pytest.approx(204.8)
    assert cfg.elem_bytes("wgt") == 1024


def test_json_round_trip_and_file(tmp_path):
    cfg = load_config("1x32x32")
    data = cfg.to_json()
    assert data["LOG_BLOCK"] == 5 and data["TIMING"]["DMA_LATENCY"] == cfg.timing.dma_latency
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({**data, "NAME": "mine"}))
    assert load_config(str(path)) == VTAConfig.from_json({**data, "NAME": "mine"})
    assert load_config(data) == cfg


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"LOG_BLOK": 4}, "LOG_BLOK"),
        ({"LOG_BLOCK": "4"}, "LOG_BLOCK"),
        ({"LOG_INP_WIDTH": 4}, "LOG_INP_WIDTH"),
        ({"LOG_ACC_WIDTH": 4}, "LOG_ACC_WIDTH"),
        ({"LOG_BLOCK": 9}, "LOG_BLOCK"),
        ({"LOG_ACC_BUFF_SIZE": 20}, "LOG_ACC_BUFF_SIZE"),  # 16384 rows > the uop's 11 bits
        ({"TIMING": {"DMA_LATENCY": -1}}, "TIMING.DMA_LATENCY"),
        ({"TIMING": {"LATENCY": 3}}, "TIMING.LATENCY"),
        ({"CLOCK_MHZ": 0}, "CLOCK_MHZ"),
    ],
)
def test_errors_name_the_field(patch, field):
    data = {**load_config("default").to_json(), **patch}
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        VTAConfig.from_json(data)


def test_unknown_preset_and_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="unknown VTA preset 'nope'.*default"):
        load_config("nope")
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(str(tmp_path / "absent.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(ConfigError, match="not JSON"):
        load_config(str(bad))
