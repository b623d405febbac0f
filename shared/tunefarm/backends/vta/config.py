"""The VTA hardware configuration: a JSON file in the style of VTA's `vta_config.json`.

A configuration fixes the shapes the whole backend is built around: the GEMM core's tensor
intrinsic (BATCH x BLOCK_IN inputs times BLOCK_OUT x BLOCK_IN weights), the element widths,
the on-chip buffer sizes and the DRAM bus. Everything else (buffer depths, bytes per tile, the
GEMM peak) is derived here once, so the ISA encoder, the simulator and the lowering never
recompute it differently.

JSON keys are VTA's (`LOG_INP_WIDTH`, `LOG_BLOCK`, `LOG_ACC_BUFF_SIZE`, ...: log2 of bits,
elements or bytes), plus `LOG_BUS_WIDTH`, `CLOCK_MHZ` and a `TIMING` object holding the cycle
model's constants. A configuration is loaded by preset name (`configs/<name>.json`) or from a
file path; every bad field is a `ConfigError` naming it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

PRESET_DIR = Path(__file__).parent / "configs"
UOP_BYTES = 4  # one micro-op: acc, input and weight indices packed in 32 bits (see isa.py)
# Bits of each micro-op field (isa.UOP_FIELDS); the buffers a config declares must fit them.
UOP_INDEX_BITS = {"acc": 11, "inp": 11, "wgt": 10}
BUFFERS = ("uop", "inp", "wgt", "acc", "out")


class ConfigError(ValueError):
    """A configuration that is malformed or that the simulator cannot model."""


@dataclass(frozen=True)
class Timing:
    """Constants of the cycle model, in cycles of the accelerator clock.

    dma_latency: fixed cost of one DMA instruction before its first beat (the DRAM round trip);
    dma_row_cycles: extra cost of each row of a 2-D transfer (one burst per row);
    insn_cycles: decode and issue cost of any instruction in its module;
    gemm_cycles_per_uop: GEMM cost of one micro-op execution (one inner iteration);
    alu_cycles_per_vector: ALU cost of one micro-op execution (one accumulator vector).
    """

    dma_latency: int = 32
    dma_row_cycles: int = 1
    insn_cycles: int = 2
    gemm_cycles_per_uop: int = 1
    alu_cycles_per_vector: int = 1


@dataclass(frozen=True)
class VTAConfig:
    """A VTA hardware configuration; widths and sizes are log2 as in VTA's JSON."""

    name: str = "default"
    log_inp_width: int = 3
    log_wgt_width: int = 3
    log_acc_width: int = 5
    log_batch: int = 0
    log_block: int = 4
    log_uop_buff_size: int = 15
    log_inp_buff_size: int = 15
    log_wgt_buff_size: int = 18
    log_acc_buff_size: int = 17
    log_bus_width: int = 6
    clock_mhz: float = 100.0
    timing: Timing = field(default_factory=Timing)

    def __post_init__(self) -> None:
        _validate(self)

    # -- shapes of the tensor intrinsic ---------------------------------------------------
    @property
    def batch(self) -> int:
        return 1 << self.log_batch

    @property
    def block_in(self) -> int:
        return 1 << self.log_block

    @property
    def block_out(self) -> int:
        return 1 << self.log_block

    @property
    def bus_bytes(self) -> int:
        return (1 << self.log_bus_width) // 8

    # -- buffers --------------------------------------------------------------------------
    def elem_bytes(self, buffer: str) -> int:
        """Bytes of one element of `buffer`: the unit of its SRAM and DMA addresses."""
        inp = self.batch * self.block_in
        out = self.batch * self.block_out
        sizes = {
            "uop": UOP_BYTES,
            "inp": inp << self.log_inp_width >> 3,
            "wgt": (self.block_out * self.block_in) << self.log_wgt_width >> 3,
            "acc": out << self.log_acc_width >> 3,
            "out": out << self.log_inp_width >> 3,  # outputs narrow to the input width
        }
        return sizes[_buffer_name(buffer)]

    def buffer_bytes(self, buffer: str) -> int:
        """On-chip capacity of `buffer` in bytes (the output buffer mirrors the accumulator)."""
        buffer = _buffer_name(buffer)
        if buffer == "out":
            return self.depth("acc") * self.elem_bytes("out")
        return 1 << getattr(self, f"log_{buffer}_buff_size")

    def depth(self, buffer: str) -> int:
        """Number of elements `buffer` holds."""
        buffer = _buffer_name(buffer)
        if buffer == "out":
            return self.depth("acc")
        return self.buffer_bytes(buffer) // self.elem_bytes(buffer)

    # -- performance ----------------------------------------------------------------------
    @property
    def macs_per_cycle(self) -> int:
        """int8 multiply-accumulates the GEMM core retires per cycle (one micro-op)."""
        return self.batch * self.block_in * self.block_out

    @property
    def peak_gops(self) -> float:
        """GEMM peak in giga-operations per second (a MAC counts as two operations)."""
        return 2 * self.macs_per_cycle * self.clock_mhz / 1e3

    def seconds(self, cycles: int) -> float:
        return cycles / (self.clock_mhz * 1e6)

    # -- JSON -----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """VTA-style JSON: upper-case keys, the timing constants under `TIMING`."""
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name != "timing":
                out[f.name.upper()] = getattr(self, f.name)
        out["TIMING"] = {k.upper(): v for k, v in asdict(self.timing).items()}
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any], name: str | None = None) -> VTAConfig:
        """Parse VTA-style JSON; unknown keys and wrong types are errors naming the key."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"a VTA config must be a JSON object, got {type(data).__name__}")
        known = {f.name.upper(): f.name for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise ConfigError(f"unknown field {key!r}; known: {sorted(known)}")
            attr = known[key]
            if attr == "timing":
                kwargs[attr] = _timing_from_json(value)
            elif attr == "name":
                kwargs[attr] = _expect(key, value, str)
            elif attr == "clock_mhz":
                kwargs[attr] = float(_expect(key, value, (int, float)))
            else:
                kwargs[attr] = _expect(key, value, int)
        if name is not None and "name" not in kwargs:
            kwargs["name"] = name
        return cls(**kwargs)


def _buffer_name(buffer: Any) -> str:
    key = getattr(buffer, "key", buffer)  # accepts isa.Buffer members too
    if key not in BUFFERS:
        raise ConfigError(f"unknown buffer {buffer!r}; known: {BUFFERS}")
    return key


def _expect(key: str, value: Any, kind: type | tuple[type, ...]) -> Any:
    if isinstance(value, bool) or not isinstance(value, kind):
        raise ConfigError(f"field {key!r} must be a number of kind {kind}, got {value!r}")
    return value


def _timing_from_json(data: Any) -> Timing:
    if not isinstance(data, Mapping):
        raise ConfigError(f"field 'TIMING' must be an object, got {data!r}")
    known = {f.name.upper(): f.name for f in fields(Timing)}
    kwargs = {}
    for key, value in data.items():
        if key not in known:
            raise ConfigError(f"unknown field 'TIMING.{key}'; known: {sorted(known)}")
        kwargs[known[key]] = _expect(f"TIMING.{key}", value, int)
    return Timing(**kwargs)


def _validate(cfg: VTAConfig) -> None:
    """Reject what the simulator cannot model, naming the JSON field."""
    fixed = {"LOG_INP_WIDTH": (cfg.log_inp_width, 3), "LOG_WGT_WIDTH": (cfg.log_wgt_width, 3)}
    fixed["LOG_ACC_WIDTH"] = (cfg.log_acc_width, 5)
    for key, (value, want) in fixed.items():
        if value != want:
            raise ConfigError(
                f"field {key!r} is {value}: only {want} (int8 in, int32 acc) is modelled"
            )
    ranges = {
        "LOG_BATCH": (cfg.log_batch, 0, 4),
        "LOG_BLOCK": (cfg.log_block, 1, 6),
        "LOG_UOP_BUFF_SIZE": (cfg.log_uop_buff_size, 2, 24),
        "LOG_INP_BUFF_SIZE": (cfg.log_inp_buff_size, 4, 24),
        "LOG_WGT_BUFF_SIZE": (cfg.log_wgt_buff_size, 4, 26),
        "LOG_ACC_BUFF_SIZE": (cfg.log_acc_buff_size, 4, 24),
        "LOG_BUS_WIDTH": (cfg.log_bus_width, 3, 10),
    }
    for key, (value, lo, hi) in ranges.items():
        if not lo <= value <= hi:
            raise ConfigError(f"field {key!r} is {value}, outside [{lo}, {hi}]")
    if not 0 < cfg.clock_mhz <= 10_000:
        raise ConfigError(f"field 'CLOCK_MHZ' is {cfg.clock_mhz}, outside (0, 10000]")
    for f in fields(Timing):
        if getattr(cfg.timing, f.name) < 0:
            raise ConfigError(f"field 'TIMING.{f.name.upper()}' must be >= 0")
    for buf in ("uop", "inp", "wgt", "acc"):
        if cfg.buffer_bytes(buf) < cfg.elem_bytes(buf):
            key = f"LOG_{buf.upper()}_BUFF_SIZE"
            raise ConfigError(f"field {key!r}: the buffer holds less than one element")
    for buf, bits in UOP_INDEX_BITS.items():
        if cfg.depth(buf) > 1 << bits:
            key = f"LOG_{buf.upper()}_BUFF_SIZE"
            raise ConfigError(
                f"field {key!r}: {cfg.depth(buf)} elements do not fit the micro-op's "
                f"{bits}-bit {buf} index"
            )


def preset_names() -> list[str]:
    """Names of the presets shipped in `configs/`."""
    return sorted(p.stem for p in PRESET_DIR.glob("*.json"))


def load_config(
    spec: str | os.PathLike[str] | Mapping[str, Any] | VTAConfig = "default",
) -> VTAConfig:
    """A config from a preset name, a JSON file path, a parsed JSON object or a config."""
    if isinstance(spec, VTAConfig):
        return spec
    if isinstance(spec, Mapping):
        return VTAConfig.from_json(spec)
    path = Path(spec)
    if path.suffix != ".json" and os.sep not in str(spec):
        if str(spec) not in preset_names():
            raise ConfigError(f"unknown VTA preset {str(spec)!r}; presets: {preset_names()}")
        path = PRESET_DIR / f"{spec}.json"
    try:
        data = json.loads(path.read_text())
    except OSError as err:
        raise ConfigError(f"cannot read VTA config {str(path)!r}: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise ConfigError(f"VTA config {str(path)!r} is not JSON: {err}") from None
    return VTAConfig.from_json(data, name=path.stem)
