"""conv2d_packed on VTA: the workload, its knob space and the tiling each config implies.

The knobs are the tutorial's (AutoTVM's `conv2d_packed.vta` template): `tile_b`, `tile_h`,
`tile_w`, `tile_ci`, `tile_co` split the batch blocks, output rows, output columns, input and
output channel blocks into (outer, inner) factors, the inner ones being what one step keeps
on chip; `oc_nthread` and `h_nthread` (1 or 2) are virtual threads over the outer output
channel and row loops. Each virtual thread owns a slot of every buffer, so with two threads
one tile's loads overlap the other's GEMMs, at the price of halving what a slot can hold.

Whether a config fits the buffers depends on the knobs together, so the space is the
tutorial's cartesian product (entities no config could fit are already dropped) and
`valid_configs` lists the configs that fit; `plan` of one that does not raises a `FitError`
naming the buffer and the bytes needed against those available.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tunefarm.backends.vta.config import VTAConfig
from tunefarm.schedule.space import ConfigSpace

KNOBS = ("tile_b", "tile_h", "tile_w", "tile_ci", "tile_co", "oc_nthread", "h_nthread")
NTHREADS = (1, 2)


class FitError(ValueError):
    """A config whose tiles do not fit an on-chip buffer (or that the space cannot hold)."""

    def __init__(self, message: str, buffer: str = "", needed: int = 0, available: int = 0):
        super().__init__(message)
        self.buffer, self.needed, self.available = buffer, needed, available


@dataclass(frozen=True)
class Conv2dWorkload:
    """A packed int8 conv2d: NCHW1n16c data, OIHW16o16i weights, int8 out after the ALU's
    requantization `clip((acc [+ bias]) >> shift, clip_lo, clip_hi)` (the tutorial uses 8,
    0, 127). With `bias`, an int32 per-output-channel bias is loaded into the accumulator
    buffer and added by the ALU before the shift (a network's folded batch norm).

    Shapes are logical (channels, not channel blocks); padding is (top, left, bottom, right).
    """

    batch: int
    in_channels: int
    height: int
    width: int
    out_channels: int
    kernel_h: int
    kernel_w: int
    stride_h: int = 1
    stride_w: int = 1
    pad_top: int = 0
    pad_left: int = 0
    pad_bottom: int = 0
    pad_right: int = 0
    shift: int = 8
    clip_lo: int = 0
    clip_hi: int = 127
    bias: bool = False

    @classmethod
    def from_tutorial(cls, row: tuple[int, ...], **kwargs: Any) -> Conv2dWorkload:
        """From the tutorial's printed tuple: (batch, height, width, in_filter, out_filter,
        hkernel, wkernel, hpad, wpad, hstride, wstride)."""
        n, h, w, ci, co, kh, kw, ph, pw, sh, sw = row
        return cls(n, ci, h, w, co, kh, kw, sh, sw, ph, pw, ph, pw, **kwargs)

    @property
    def out_height(self) -> int:
        return (self.height + self.pad_top + self.pad_bottom - self.kernel_h) // self.stride_h + 1

    @property
    def out_width(self) -> int:
        return (self.width + self.pad_left + self.pad_right - self.kernel_w) // self.stride_w + 1

    @property
    def ops(self) -> int:
        """Operations (2 per MAC) of the convolution itself."""
        macs = self.batch * self.out_channels * self.out_height * self.out_width
        return 2 * macs * self.in_channels * self.kernel_h * self.kernel_w

    def blocks(self, hw: VTAConfig) -> tuple[int, int, int]:
        """(batch blocks, input channel blocks, output channel blocks)."""
        return (
            self.batch // hw.batch,
            self.in_channels // hw.block_in,
            self.out_channels // hw.block_out,
        )

    def data_shape(self, hw: VTAConfig) -> tuple[int, ...]:
        nb, icb, _ = self.blocks(hw)
        return (nb, icb, self.height, self.width, hw.batch, hw.block_in)

    def weight_shape(self, hw: VTAConfig) -> tuple[int, ...]:
        _, icb, ocb = self.blocks(hw)
        return (ocb, icb, self.kernel_h, self.kernel_w, hw.block_out, hw.block_in)

    def bias_shape(self, hw: VTAConfig) -> tuple[int, ...]:
        """The bias in DRAM: one accumulator element (batch x block_out int32) per output
        channel block, its batch rows equal."""
        return (self.out_channels // hw.block_out, hw.batch, hw.block_out)

    def out_shape(self, hw: VTAConfig) -> tuple[int, ...]:
        nb, _, ocb = self.blocks(hw)
        return (nb, ocb, self.out_height, self.out_width, hw.batch, hw.block_out)

    def check(self, hw: VTAConfig) -> None:
        """Raise ValueError naming the field if the accelerator cannot run this workload."""
        for name in ("batch", "in_channels", "height", "width", "out_channels"):
            if getattr(self, name) < 1:
                raise ValueError(f"conv2d_packed: {name} must be positive")
        for name in ("kernel_h", "kernel_w", "stride_h", "stride_w"):
            if getattr(self, name) < 1:
                raise ValueError(f"conv2d_packed: {name} must be positive")
        for name in ("pad_top", "pad_left", "pad_bottom", "pad_right"):
            if getattr(self, name) < 0:
                raise ValueError(f"conv2d_packed: {name} must be >= 0")
        pairs = (("batch", hw.batch), ("in_channels", hw.block_in))
        for name, block in (*pairs, ("out_channels", hw.block_out)):
            if getattr(self, name) % block:
                raise ValueError(
                    f"conv2d_packed: {name}={getattr(self, name)} is not a "
                    f"multiple of the {hw.name} config's block {block}"
                )
        if self.out_height < 1 or self.out_width < 1:
            raise ValueError("conv2d_packed: the kernel is larger than the padded input")
        if not 0 <= self.shift <= 31 or self.clip_lo > self.clip_hi:
            raise ValueError("conv2d_packed: shift must be in [0, 31] and clip_lo <= clip_hi")


@dataclass(frozen=True)
class Tiling:
    """What one config means on chip: per-step tile sizes and per-thread buffer slots."""

    b_in: int
    ci_in: int
    co_in: int
    th: int  # output rows per tile
    tw: int  # output columns per tile
    rows: int  # input rows per tile, halo included
    cols: int
    oc_nthread: int
    h_nthread: int
    b_out: int
    ci_out: int
    co_out: int
    h_out: int
    w_out: int

    @property
    def threads(self) -> int:
        return self.oc_nthread * self.h_nthread

    def slot_elems(self, wl: Conv2dWorkload) -> dict[str, int]:
        """Elements one virtual thread's slot needs in each buffer."""
        kk = wl.kernel_h * wl.kernel_w
        return {
            "inp": self.b_in * self.ci_in * self.rows * self.cols,
            "wgt": self.co_in * self.ci_in * kk,
            "acc": self.b_in * self.co_in * self.th * self.tw,
            "uop": self.gemm_uops(wl) + self.tw * (2 if wl.bias else 1),
        }

    def bias_elems(self, wl: Conv2dWorkload) -> int:
        """Accumulator elements the bias of one tile takes (shared by the threads: the
        compute module loads it just before each thread's add)."""
        return self.b_in * self.co_in if wl.bias else 0

    def gemm_uops(self, wl: Conv2dWorkload) -> int:
        """Micro-ops of one thread's GEMM kernel: (batch, ci, kh, kw, column)."""
        return self.b_in * self.ci_in * wl.kernel_h * wl.kernel_w * self.tw


def _split(knobs: Mapping[str, Any], name: str, extent: int) -> tuple[int, int]:
    value = knobs[name]
    outer, inner = (int(v) for v in value)
    if outer * inner != extent or inner < 1:
        raise FitError(f"{name}={tuple(value)!r} does not split extent {extent}")
    return outer, inner


def _tiling(wl: Conv2dWorkload, knobs: Mapping[str, Any], hw: VTAConfig) -> Tiling:
    missing = [k for k in KNOBS if k not in knobs]
    if missing:
        raise FitError(f"conv2d_packed config lacks knob(s) {missing}")
    nb, icb, ocb = wl.blocks(hw)
    b_out, b_in = _split(knobs, "tile_b", nb)
    h_out, th = _split(knobs, "tile_h", wl.out_height)
    w_out, tw = _split(knobs, "tile_w", wl.out_width)
    ci_out, ci_in = _split(knobs, "tile_ci", icb)
    co_out, co_in = _split(knobs, "tile_co", ocb)
    oc_n, h_n = int(knobs["oc_nthread"]), int(knobs["h_nthread"])
    if oc_n not in NTHREADS or h_n not in NTHREADS:
        raise FitError(f"oc_nthread and h_nthread must be in {NTHREADS}")
    if co_out % oc_n or h_out % h_n:
        raise FitError(
            f"virtual threads ({oc_n} over {co_out} output-channel tiles, {h_n} "
            f"over {h_out} row tiles) must divide the outer loops"
        )
    rows = (th - 1) * wl.stride_h + wl.kernel_h
    cols = (tw - 1) * wl.stride_w + wl.kernel_w
    return Tiling(
        b_in, ci_in, co_in, th, tw, rows, cols, oc_n, h_n, b_out, ci_out, co_out, h_out, w_out
    )


def plan(wl: Conv2dWorkload, knobs: Mapping[str, Any], hw: VTAConfig) -> Tiling:
    """The tiling of a config; FitError naming the first buffer it overflows."""
    wl.check(hw)
    tiling = _tiling(wl, knobs, hw)
    for buffer, elems in tiling.slot_elems(wl).items():
        need = tiling.threads * elems + (tiling.bias_elems(wl) if buffer == "acc" else 0)
        if need > hw.depth(buffer):
            eb = hw.elem_bytes(buffer)
            raise FitError(
                f"conv2d_packed config does not fit the {buffer} buffer: it needs "
                f"{need * eb} bytes ({tiling.threads} thread(s) x {elems} elements x {eb} "
                f"bytes{', and the bias' if buffer == 'acc' and wl.bias else ''}), "
                f"the {hw.name} config has {hw.buffer_bytes(buffer)}",
                buffer,
                need * eb,
                hw.buffer_bytes(buffer),
            )
    return tiling


def check_config(wl: Conv2dWorkload, knobs: Mapping[str, Any], hw: VTAConfig) -> str | None:
    """None if the config is valid, else the reason (the FitError message)."""
    try:
        plan(wl, knobs, hw)
    except FitError as err:
        return str(err)
    return None


def config_space(wl: Conv2dWorkload, hw: VTAConfig) -> ConfigSpace:
    """The tutorial's knobs; split entities that cannot fit even with every other knob at its
    smallest are dropped, so what remains is a superset of `valid_configs`."""
    wl.check(hw)
    nb, icb, ocb = wl.blocks(hw)
    smallest = {
        "tile_b": (nb, 1),
        "tile_h": (wl.out_height, 1),
        "tile_w": (wl.out_width, 1),
        "tile_ci": (icb, 1),
        "tile_co": (ocb, 1),
        "oc_nthread": 1,
        "h_nthread": 1,
    }

    def fits(name: str):
        return lambda entity: check_config(wl, {**smallest, name: entity}, hw) is None

    space = ConfigSpace()
    extents = {
        "tile_b": nb,
        "tile_h": wl.out_height,
        "tile_w": wl.out_width,
        "tile_ci": icb,
        "tile_co": ocb,
    }
    for name, extent in extents.items():
        space.define_split(name, extent, 2, policy="factors", filter=fits(name))
    space.define_knob("oc_nthread", NTHREADS)
    space.define_knob("h_nthread", NTHREADS)
    return space


def valid_configs(wl: Conv2dWorkload, hw: VTAConfig) -> list[dict[str, Any]]:
    """Every config of `config_space` that fits the buffers, in space order."""
    space = config_space(wl, hw)
    entities = [knob.entities for knob in space.knobs.values()]
    out = []
    for values in itertools.product(*reversed(entities)):  # first knob varies fastest
        knobs = dict(zip(KNOBS, reversed(values), strict=True))
        if check_config(wl, knobs, hw) is None:
            out.append(knobs)
    return out


def default_config(wl: Conv2dWorkload, hw: VTAConfig) -> dict[str, Any]:
    """The untuned config: no virtual threads, and a hand rule for tiles that a person would
    pick without measuring: whole output rows, as many rows as fill half the accumulator,
    all output-channel blocks that still fit, all input-channel blocks that still fit."""
    nb, icb, ocb = wl.blocks(hw)
    oh, ow = wl.out_height, wl.out_width
    knobs: dict[str, Any] = {
        "tile_b": (nb, 1),
        "tile_w": (1, ow),
        "tile_ci": (icb, 1),
        "tile_co": (ocb, 1),
        "oc_nthread": 1,
        "h_nthread": 1,
    }

    def best(name: str, extent: int, budget_ok) -> None:
        for inner in sorted(_divisors(extent), reverse=True):
            trial = {**knobs, name: (extent // inner, inner)}
            if budget_ok(trial) and check_config(wl, trial, hw) is None:
                knobs[name] = trial[name]
                return

    half_acc = hw.depth("acc") // 2
    knobs["tile_h"] = (oh, 1)
    if check_config(wl, knobs, hw) is not None:  # a whole row does not fit: split columns
        knobs["tile_w"] = (ow, 1)
        best("tile_w", ow, lambda k: True)
    best("tile_h", oh, lambda k: k["tile_h"][1] * k["tile_w"][1] <= max(half_acc, 1))
    best("tile_co", ocb, lambda k: True)
    best("tile_ci", icb, lambda k: True)
    if check_config(wl, knobs, hw) is not None:
        raise FitError(f"no config of conv2d_packed {wl} fits the {hw.name} config")
    return {name: knobs[name] for name in KNOBS}


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]
