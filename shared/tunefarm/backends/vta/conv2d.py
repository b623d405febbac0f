"""Lowering of conv2d_packed to a VTA program: DMA, micro-op loops, ALU and dependency tokens.

The output is cut into tiles (tile_b x tile_co x tile_h x tile_w inner factors); virtual
threads take consecutive tiles of the outer co/h loops, and a *group* is one tile per thread.
For each group the program is

    compute: RESET the thread's accumulator slot          (waits for its previous STORE)
    for each input-channel step ci0, for each thread:
        load:    input tile (one 2-D DMA per batch and channel block, halo and zero padding)
                 and weight tile (one 2-D DMA)             (waits for the GEMM that last used
                                                            the slot, pushes to compute)
        compute: GEMM over the tile                        (pops the load, pushes to load)
    compute: [LOAD bias into the accumulator, ALU acc += bias]
             ALU  acc >> shift, min(hi), max(lo)           (pushes to store)
    store:   one 2-D DMA per batch and channel block       (pops compute, pushes to compute)

Step k (counting (group, ci0, thread) in program order) uses buffer slot k mod T, so the
load of step k only waits for the GEMM of step k - T: with T = 2 one thread's loads run while
the other computes. The micro-op kernels (one GEMM kernel and one elementwise kernel per
thread, addressing its slots) are loaded once, at the start.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tunefarm.backends.vta import isa
from tunefarm.backends.vta.config import VTAConfig, load_config
from tunefarm.backends.vta.conv2d_space import Conv2dWorkload, Tiling, plan
from tunefarm.backends.vta.dram import DramLayout
from tunefarm.backends.vta.isa import AluOp, Buffer
from tunefarm.backends.vta.simulator import SimResult, Simulator


@dataclass(frozen=True)
class LoweredConv2d:
    """A ready-to-run program: instructions, micro-ops and where each tensor lives in DRAM.

    DRAM regions: "data" and "weight" (packed int8 inputs), "bias" (int32, if the workload
    has one), "uops" (uint32 micro-ops), "output" (packed int8 result).
    """

    workload: Conv2dWorkload
    hw: VTAConfig
    knobs: dict[str, Any]
    tiling: Tiling
    insns: tuple[isa.Insn, ...]
    uops: tuple[isa.Uop, ...]
    layout: DramLayout
    _words: np.ndarray = field(repr=False, compare=False, default=None)

    def encoded(self) -> np.ndarray:
        """The instruction stream in the simulator's binary layout."""
        return self._words

    def dram(
        self,
        data: np.ndarray | None = None,
        weight: np.ndarray | None = None,
        bias: np.ndarray | None = None,
    ) -> np.ndarray:
        """A DRAM image holding the micro-ops and the given packed inputs (zeros if None)."""
        arrays = {"uops": isa.encode_uops(self.uops)}
        for name, value in (("data", data), ("weight", weight), ("bias", bias)):
            if value is not None:
                arrays[name] = value
        return self.layout.pack(arrays)

    def output(self, dram: np.ndarray) -> np.ndarray:
        """The packed int8 output, copied out of a DRAM image after a run."""
        return self.layout.view(dram, "output").copy()


class _Emitter:
    """Builds the instruction list for one (workload, tiling); one method per program part."""

    def __init__(
        self, wl: Conv2dWorkload, t: Tiling, hw: VTAConfig, layout: DramLayout, n_uops: int
    ):
        self.wl, self.t, self.hw, self.n_uops = wl, t, hw, n_uops
        self.insns: list[isa.Insn] = []
        self.base = {
            "data": layout.element_base("data", hw.elem_bytes("inp")),
            "weight": layout.element_base("weight", hw.elem_bytes("wgt")),
            "output": layout.element_base("output", hw.elem_bytes("out")),
            "uops": layout.element_base("uops", hw.elem_bytes("uop")),
        }
        if wl.bias:
            self.base["bias"] = layout.element_base("bias", hw.elem_bytes("acc"))
        elems = t.slot_elems(wl)
        self.slot = {name: elems[name] for name in ("inp", "wgt", "acc")}
        self.uop_slot = elems["uop"]
        self.bias_sram = t.threads * elems["acc"]  # after every thread's accumulator slot

    def emit(self, insn: isa.Insn) -> None:
        self.insns.append(insn)

    # -- tiles ----------------------------------------------------------------------------
    def groups(self) -> list[list[tuple[int, int, int, int]]]:
        """Tiles (b0, co0, h0, w0) in program order, one list per group of T threads."""
        t = self.t
        out = []
        for b0 in range(t.b_out):
            for cg in range(t.co_out // t.oc_nthread):
                for hg in range(t.h_out // t.h_nthread):
                    for w0 in range(t.w_out):
                        out.append(
                            [
                                (b0, cg * t.oc_nthread + oc, hg * t.h_nthread + hh, w0)
                                for oc in range(t.oc_nthread)
                                for hh in range(t.h_nthread)
                            ]
                        )
        return out

    # -- program parts --------------------------------------------------------------------
    def _elementwise(self, thread: int) -> dict[str, int]:
        """Loops over one thread's accumulator tile: (batch, co) x rows x the column kernel."""
        t = self.t
        begin = thread * self.uop_slot + t.gemm_uops(self.wl)
        return dict(
            uop_begin=begin,
            uop_end=begin + t.tw,
            iter_out=t.b_in * t.co_in,
            iter_in=t.th,
            dst_factor_out=t.th * t.tw,
            dst_factor_in=t.tw,
        )

    def reset(self, thread: int, pop_store: bool) -> None:
        self.emit(isa.Gemm(**self._elementwise(thread), reset=True, pop_next=pop_store))

    def loads(self, thread: int, tile: tuple[int, ...], ci0: int, pop: bool) -> None:
        """Input tile (per batch and channel block) and weight tile of one step; the first
        waits for the slot to be free, the last tells compute the step is loaded."""
        wl, t, hw = self.wl, self.t, self.hw
        b0, co0, h0, w0 = tile
        icb = wl.in_channels // hw.block_in
        y0, ysize, ypad0, ypad1 = _window(h0 * t.th * wl.stride_h - wl.pad_top, t.rows, wl.height)
        x0, xsize, xpad0, xpad1 = _window(w0 * t.tw * wl.stride_w - wl.pad_left, t.cols, wl.width)
        if ysize == 0 or xsize == 0:  # the tile lies in the padding: zero-fill it whole
            ysize, xsize, ypad0, ypad1, xpad0, xpad1 = 0, 0, t.rows, 0, t.cols, 0
        window = (ysize, xsize, wl.width, ypad0, ypad1, xpad0, xpad1)
        first = True
        for b in range(t.b_in):
            for ci in range(t.ci_in):
                plane = (b0 * t.b_in + b) * icb + ci0 * t.ci_in + ci
                sram = thread * self.slot["inp"] + (b * t.ci_in + ci) * t.rows * t.cols
                dram = self.base["data"] + (plane * wl.height + y0) * wl.width + x0
                self.emit(isa.Load(Buffer.INP, sram, dram, *window, pop_next=pop and first))
                first = False
        kk = wl.kernel_h * wl.kernel_w
        dram = self.base["weight"] + ((co0 * t.co_in) * icb + ci0 * t.ci_in) * kk
        sizes = (t.co_in, t.ci_in * kk, icb * kk)
        sram = thread * self.slot["wgt"]
        self.emit(isa.Load(Buffer.WGT, sram, dram, *sizes, pop_next=pop and first, push_next=True))

    def gemm(self, thread: int, push_load: bool) -> None:
        """One step's GEMM: co blocks x rows x the kernel over (batch, ci, kh, kw, column)."""
        wl, t = self.wl, self.t
        begin = thread * self.uop_slot
        self.emit(isa.Gemm(
            uop_begin=begin, uop_end=begin + t.gemm_uops(wl), iter_out=t.co_in, iter_in=t.th,
            dst_factor_out=t.th * t.tw, dst_factor_in=t.tw, src_factor_in=wl.stride_h * t.cols,
            wgt_factor_out=t.ci_in * wl.kernel_h * wl.kernel_w,
            pop_prev=True, push_prev=push_load,
        ))  # fmt: skip

    def add_bias(self, thread: int, tile: tuple[int, ...]) -> None:
        """Load the tile's bias (one accumulator element per batch and co block) behind
        every slot, then acc += bias, the bias index following (batch, co) only. The compute
        module runs both in order, so the shared bias area needs no tokens."""
        t = self.t
        co0 = tile[1]
        for b in range(t.b_in):
            sram, dram = self.bias_sram + b * t.co_in, self.base["bias"] + co0 * t.co_in
            self.emit(isa.Load(Buffer.ACC, sram, dram, 1, t.co_in, t.co_in))
        loops = self._elementwise(thread)
        begin = loops["uop_end"]
        loops.update(uop_begin=begin, uop_end=begin + t.tw, src_factor_out=1, src_factor_in=0)
        self.emit(isa.Alu(AluOp.ADD, **loops, use_imm=False))

    def requantize(self, thread: int, tile: tuple[int, ...]) -> None:
        """[acc += bias,] acc >> shift, min(clip_hi), max(clip_lo); the last tells store the
        tile is ready."""
        wl, loops = self.wl, self._elementwise(thread)
        if wl.bias:
            self.add_bias(thread, tile)
        self.emit(isa.Alu(AluOp.SHR, **loops, use_imm=True, imm=wl.shift))
        self.emit(isa.Alu(AluOp.MIN, **loops, use_imm=True, imm=wl.clip_hi))
        self.emit(isa.Alu(AluOp.MAX, **loops, use_imm=True, imm=wl.clip_lo, push_next=True))

    def stores(self, thread: int, tile: tuple[int, ...], push_compute: bool) -> None:
        """One 2-D DMA per (batch, co) block of the tile; the first waits for the ALU, the
        last frees the accumulator slot for the thread's next tile."""
        wl, t, hw = self.wl, self.t, self.hw
        b0, co0, h0, w0 = tile
        ocb, oh, ow = wl.out_channels // hw.block_out, wl.out_height, wl.out_width
        blocks = [(b, co) for b in range(t.b_in) for co in range(t.co_in)]
        for k, (b, co) in enumerate(blocks):
            plane = (b0 * t.b_in + b) * ocb + co0 * t.co_in + co
            sram = thread * self.slot["acc"] + (b * t.co_in + co) * t.th * t.tw
            dram = self.base["output"] + (plane * oh + h0 * t.th) * ow + w0 * t.tw
            last = push_compute and k == len(blocks) - 1
            self.emit(isa.Store(sram, dram, t.th, t.tw, ow, pop_prev=k == 0, push_prev=last))

    def program(self) -> list[isa.Insn]:
        t = self.t
        groups = self.groups()
        total_steps = len(groups) * t.ci_out * t.threads
        self.emit(isa.Load(Buffer.UOP, 0, self.base["uops"], 1, self.n_uops, 0))
        step = 0
        for g, tiles in enumerate(groups):
            for thread in range(t.threads):
                self.reset(thread, pop_store=g > 0)
            for ci0 in range(t.ci_out):
                for thread, tile in enumerate(tiles):
                    self.loads(thread, tile, ci0, pop=step + thread >= t.threads)
                for thread in range(t.threads):
                    self.gemm(thread, push_load=step + thread + t.threads < total_steps)
                step += t.threads
            for thread, tile in enumerate(tiles):
                self.requantize(thread, tile)
            for thread, tile in enumerate(tiles):
                self.stores(thread, tile, push_compute=g + 1 < len(groups))
        self.emit(isa.Finish())
        return self.insns


def _window(start: int, size: int, extent: int) -> tuple[int, int, int, int]:
    """(first in-bounds index, in-bounds count, pad before, pad after) of [start, +size)."""
    lo, hi = max(start, 0), min(start + size, extent)
    if hi <= lo:
        return 0, 0, size, 0
    return lo, hi - lo, lo - start, start + size - hi


def _uop_kernels(wl: Conv2dWorkload, t: Tiling) -> list[isa.Uop]:
    """Per thread: the GEMM kernel over (batch, ci, kh, kw, column), then the elementwise
    kernel over columns (reset and ALU), all addressing that thread's slots."""
    elems = t.slot_elems(wl)
    uops = []
    for thread in range(t.threads):
        acc0, inp0, wgt0 = (thread * elems[k] for k in ("acc", "inp", "wgt"))
        for b in range(t.b_in):
            for ci in range(t.ci_in):
                for kh in range(wl.kernel_h):
                    for kw in range(wl.kernel_w):
                        for ow in range(t.tw):
                            uops.append(
                                isa.Uop(
                                    acc0 + b * t.co_in * t.th * t.tw + ow,
                                    inp0
                                    + ((b * t.ci_in + ci) * t.rows + kh) * t.cols
                                    + ow * wl.stride_w
                                    + kw,
                                    wgt0 + (ci * wl.kernel_h + kh) * wl.kernel_w + kw,
                                )
                            )
        uops.extend(isa.Uop(acc0 + ow, acc0 + ow, 0) for ow in range(t.tw))
        if wl.bias:  # acc[column] += bias (the bias element's index comes from the loops)
            bias0 = t.threads * elems["acc"]
            uops.extend(isa.Uop(acc0 + ow, bias0, 0) for ow in range(t.tw))
    return uops


def lower_conv2d_packed(
    wl: Conv2dWorkload, knobs: Mapping[str, Any], hw: VTAConfig | str = "default"
) -> LoweredConv2d:
    """The VTA program of `wl` under config `knobs`; FitError if the tiles do not fit."""
    hw = load_config(hw)
    tiling = plan(wl, knobs, hw)
    uops = _uop_kernels(wl, tiling)
    align = max(hw.elem_bytes(b) for b in ("inp", "wgt", "acc", "out", "uop"))
    regions = [("data", wl.data_shape(hw), "int8"), ("weight", wl.weight_shape(hw), "int8")]
    if wl.bias:
        regions.append(("bias", wl.bias_shape(hw), "<i4"))
    regions += [("uops", (len(uops),), "<u4"), ("output", wl.out_shape(hw), "int8")]
    layout = DramLayout.build(regions, align=align)
    insns = tuple(_Emitter(wl, tiling, hw, layout, len(uops)).program())
    return LoweredConv2d(wl, hw, dict(knobs), tiling, insns, tuple(uops), layout, isa.encode(insns))


def conv2d_packed_reference(
    data: np.ndarray, weight: np.ndarray, wl: Conv2dWorkload, bias: np.ndarray | None = None
) -> np.ndarray:
    """numpy oracle: int8 conv -> int32 (wrapping) [+ bias (O,) int32, wrapping] -> >> shift
    -> clip -> int8, in the packed layouts (data NCHW{b}n{i}c, weight OIHW{o}o{i}i, output
    NCHW{b}n{o}c)."""
    nb, icb, h, w, bn, bi = data.shape
    ocb, _, kh, kw, bo, _ = weight.shape
    x = data.transpose(0, 4, 1, 5, 2, 3).reshape(nb * bn, icb * bi, h, w).astype(np.float64)
    k = weight.transpose(0, 4, 1, 5, 2, 3).reshape(ocb * bo, icb * bi, kh, kw)
    x = np.pad(x, ((0, 0), (0, 0), (wl.pad_top, wl.pad_bottom), (wl.pad_left, wl.pad_right)))
    oh, ow = wl.out_height, wl.out_width
    win = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(2, 3))
    win = win[
        :, :, : (oh - 1) * wl.stride_h + 1 : wl.stride_h, : (ow - 1) * wl.stride_w + 1 : wl.stride_w
    ]  # (n, c, oh, ow, kh, kw)
    cols = win.transpose(0, 2, 3, 1, 4, 5).reshape(nb * bn * oh * ow, -1)
    # float64 is exact here: |sum| < 2**53 for any int8 conv a buffer could hold
    acc = (cols @ k.reshape(ocb * bo, -1).astype(np.float64).T).astype(np.int64)
    acc = acc.astype(np.int32)
    if bias is not None:
        acc = (acc.astype(np.int64) + bias.reshape(-1).astype(np.int64)).astype(np.int32)
    acc = acc >> wl.shift
    out = np.clip(acc, wl.clip_lo, wl.clip_hi).astype(np.int8)
    out = out.reshape(nb, bn, oh, ow, ocb, bo).transpose(0, 4, 2, 3, 1, 5)
    return np.ascontiguousarray(out)


def random_inputs(wl: Conv2dWorkload, hw: VTAConfig, seed: int = 0) -> tuple[np.ndarray, ...]:
    """Random packed int8 data and weights for tests and measurements."""
    rng = np.random.default_rng(seed)
    data = rng.integers(-128, 128, wl.data_shape(hw), dtype=np.int8)
    weight = rng.integers(-128, 128, wl.weight_shape(hw), dtype=np.int8)
    return data, weight


def simulate(
    lowered: LoweredConv2d,
    sim: Simulator,
    data: np.ndarray | None = None,
    weight: np.ndarray | None = None,
) -> tuple[SimResult, np.ndarray | None]:
    """Run a lowered conv: with inputs, the result and the packed output; without, a
    timing-only run (cycles do not depend on data) and None."""
    functional = data is not None and weight is not None
    dram = lowered.dram(data, weight)
    result = sim.run(lowered.encoded(), dram, functional=functional)
    return result, (lowered.output(dram) if functional and result.ok else None)
