"""x86 conv2d in the blocked NCHW[x]c layout, with a register-tiled micro-kernel.

The schedule follows the known recipe for x86 convolutions: activations NCHW[ib]c, weights
OIHW[ib]i[ob]o, output-channel block = vector width; an accumulator tile of `reg_n` output
columns x `oc_inner` channel vectors lives in registers (a local buffer indexed by constants
after unrolling) while the reduction runs over input-channel blocks, kernel rows and columns;
the epilogue (bias, residual, activation) is applied as the tile is stored; one OpenMP
region over (batch, output-channel block, output row).

Knobs: tile_ic (ib), tile_oc (blocks, oc_inner, ob), tile_ow (reg_n), unroll_kw, order,
ic_passes (the reduction in that many slices of input channels, each over a per-block map
of partial sums: `pass_blocked_conv_schedule`, the default where the reduction is long).

A task may pin the channel blocks with the param `blocks: [ib, ob]`: then the space holds
only configs that read NCHW[ib]c and write NCHW[ob]c. Network tasks are pinned to the
network's layout (see `network_blocks`), so that a tuned config never costs its neighbours a
layout transform that tuning the task alone could not see.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tunefarm.backends.cpu.target import num_cores, vector_lanes
from tunefarm.ir import layouts as L
from tunefarm.ir import reference as R
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.conv import conv2d_nchwc
from tunefarm.ir.ops.epilogue import (
    build_epilogue,
    epilogue_inputs,
    reference_epilogue,
)
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import (
    KernelDef,
    Template,
    accumulator,
    check_config,
    divisors,
    io_key,
)
from tunefarm.schedule.template import (
    conv_params as logical_conv_params,
)
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

ORDERS = ("kw_outer", "icb_outer")
IC_PASSES = (1, 2, 4, 8, 16, 32)  # passes of the reduction over the output map (1: one)
PASS_CHANNELS = 128  # input channels per pass of the default's blocked reduction
MIN_PASS_CHANNELS = 16  # the space's shortest pass (16 channels: one AVX-512 block)
MAX_MAP_BYTES = 256 << 10  # the partial-sum map a default pass may accumulate
MAX_SPACE_MAP_BYTES = 2 << 20  # the largest such map (a stack array) any config may make


def conv_params(task: Task) -> dict[str, Any]:
    """The logical conv params (`schedule.template.conv_params`) and the channel blocks the
    network pinned, if any."""
    p = logical_conv_params(task)
    p["blocks"] = _pinned_blocks(task, p["c"], p["o"])
    return p


def _pinned_blocks(task: Task, c: int, o: int) -> tuple[int, int] | None:
    """The optional `blocks: [ib, ob]` param: input and output channel blocks that must
    divide the channel counts."""
    value = task.args.get("blocks")
    if value is None:
        return None
    try:
        if isinstance(value, str):
            raise TypeError
        ib, ob = (int(v) for v in value)
    except (TypeError, ValueError):
        raise TaskError(
            f"{task.op}: blocks must be [ib, ob] (two integers), got {value!r}"
        ) from None
    if ib < 1 or ob < 1 or c % ib or o % ob:
        raise TaskError(f"{task.op}: blocks {[ib, ob]} must divide the channels (C={c}, O={o})")
    return ib, ob


def network_blocks(c: int, o: int, lanes: int, groups: int = 1) -> tuple[int, int]:
    """The channel blocks a network keeps its activations in: the widest vector-friendly
    block of each channel count (what the default configs pick). An odd input channel count
    of a dense conv (RGB input) is read in blocks of one: NCHW1c is NCHW itself, so the
    network's input needs no transform, and the broadcast inner loop does not care (measured
    on the ResNet-18 stem: 0.56 ms with blocks of one, 0.66 ms with blocks of three). A
    depthwise conv reads and writes one block."""
    ob = best_block(o, lanes)
    if groups > 1:
        return ob, ob
    return (1 if c % 2 else best_block(c, lanes)), ob


def block_filter(pinned: int | None):
    """A split filter that keeps the innermost factor equal to the pinned block."""
    return None if pinned is None else (lambda f: f[-1] == pinned)


def conv_flops(p: dict[str, Any]) -> float:
    return 2.0 * p["n"] * p["o"] * p["oh"] * p["ow"] * (p["c"] // p["groups"]) * p["kh"] * p["kw"]


def conv_reference(p: dict[str, Any], inputs: dict[str, np.ndarray]) -> np.ndarray:
    out = R.conv2d_nchw(
        inputs["data"], inputs["weight"], p["strides"], p["padding"], p["dilation"], p["groups"]
    )
    return reference_epilogue(out, p["epilogue"], inputs)


def conv_logical_inputs(p: dict[str, Any]) -> list[tuple[str, tuple[int, ...]]]:
    data = ("data", (p["n"], p["c"], p["h"], p["w"]))
    weight = ("weight", (p["o"], p["c"] // p["groups"], p["kh"], p["kw"]))
    return [
        data,
        weight,
        *epilogue_inputs(p["epilogue"], p["o"], (p["n"], p["o"], p["oh"], p["ow"])),
    ]


def register_tile_steps(
    out: str,
    acc: str,
    spatial: tuple[str, ...],
    cfg: dict[str, Any],
    reduce_order: tuple[str, ...],
    unroll: tuple[str, ...],
    columns_outer: bool = False,
) -> list[S.Step]:
    """Steps shared by the blocked conv-like templates: tile the output columns, fuse and
    parallelise the outer axes, compute the accumulator tile at the column block.

    `columns_outer` orders the tile's FMAs column by column (each input value broadcast
    once, then one FMA per output vector) instead of vector by vector: gcc then keeps
    `columns x vectors + vectors + 1` registers live, not `columns x (vectors + 1) + 1`
    (it hoists every broadcast of the vector-by-vector order), so a 14 x 2 tile fits
    AVX-512's 32 registers without spilling."""
    n, cc, oh, ow, cb = spatial
    reg_n, inner = cfg["tile_ow"][1], cfg.get("oc_inner", 1)
    fused = f"{n}+{cc}.0+{oh}"
    steps: list[S.Step] = [
        S.Split(out, cc, (inner,)),
        S.Split(out, ow, (reg_n,)),
        S.Reorder(out, (n, f"{cc}.0", oh, f"{ow}.0", f"{cc}.1", f"{ow}.1", cb)),
        S.Fuse(out, (n, f"{cc}.0", oh)),
        S.Parallel(out, fused),
        S.Unroll(out, f"{cc}.1"),
        S.Unroll(out, f"{ow}.1"),
        S.Vectorize(out, cb),
        S.ComputeAt(acc, out, f"{ow}.0"),
        S.Reorder(acc, (n, oh, *reduce_order, *((ow, cc) if columns_outer else (cc, ow)), cb)),
        S.Unroll(acc, cc),
        S.Unroll(acc, ow),
        S.Vectorize(acc, cb),
    ]
    steps += [S.Unroll(acc, ax) for ax in unroll]
    return steps


def channel_splits(p: dict[str, Any], max_inner: int) -> ConfigSpace:
    """A space with the blocked conv's channel knobs: tile_ic (blocks, ib) and tile_oc
    (blocks, oc_inner <= max_inner, ob), the blocks held to the task's pinned ones."""
    ib, ob = p["blocks"] or (None, None)
    sp = ConfigSpace()
    sp.define_split("tile_ic", p["c"], 2, max_factor=64, filter=block_filter(ib))
    sp.define_split(
        "tile_oc",
        p["o"],
        3,
        max_factor=64,
        filter=lambda f: f[1] <= max_inner and ob in (None, f[2]),
    )
    return sp


PAD_MODES = ("copy", "inline")


def define_pad_knob(sp: ConfigSpace, padding: tuple[int, ...]) -> None:
    """How a padded conv reads its input: "copy" builds a zero-padded copy first (an extra
    pass over memory, but a branch-free inner loop), "inline" tests bounds at each load (no
    extra pass; wins on memory-bound layers such as depthwise convs)."""
    if any(padding):
        sp.define_knob("pad", list(PAD_MODES))


def with_pad(values: dict[str, Any], p: dict[str, Any], mode: str) -> dict[str, Any]:
    """`values` plus the pad knob's preferred mode, where the task has that knob."""
    return {**values, "pad": mode} if any(p["padding"]) else values


def pad_steps(stage: str, axes: tuple[str, ...], mode: str = "copy") -> list[S.Step]:
    """With "copy" the zero-padded copy is computed once per call, in parallel over
    (n, c-block, row); with "inline" the bounds test moves into the conv's loads."""
    if mode == "inline":
        return [S.ComputeInline(stage)]
    n, cc, h, _w, cb = axes
    return [S.Fuse(stage, (n, cc, h)), S.Parallel(stage, f"{n}+{cc}+{h}"), S.Vectorize(stage, cb)]


class ConvTemplate(Template):
    """What every conv-like template shares: logical NCHW/OIHW inputs (plus epilogue
    inputs), the numpy reference and the FLOP count, from `validate`'s params."""

    def logical_inputs(self, task):
        return conv_logical_inputs(self.validate(task))

    def reference(self, task, inputs):
        return conv_reference(self.validate(task), inputs)

    def flops(self, task):
        return conv_flops(self.validate(task))


class Conv2dNCHWc(ConvTemplate):
    op = "conv2d"

    def validate(self, task: Task) -> dict[str, Any]:
        p = conv_params(task)
        if p["groups"] != 1:
            raise TaskError("conv2d_nchwc template handles groups=1 only")
        return p

    def space(self, task: Task, target: Target) -> ConfigSpace:
        p = self.validate(task)
        sp = channel_splits(p, max_inner=4)
        sp.define_split("tile_ow", p["ow"], 2, max_factor=32)
        sp.define_knob("unroll_kw", [True, False])
        sp.define_knob("order", list(ORDERS))
        define_pad_knob(sp, p["padding"])
        sp.define_knob("ic_passes", pass_counts(p))
        return sp

    def preferred(self, task, space, target):
        p = self.validate(task)
        ib, ob = p["blocks"] or network_blocks(p["c"], p["o"], vector_lanes(target))
        reg, inner = register_tile(p, ob, vector_lanes(target))
        passes = default_passes(p, ib, ob, vector_lanes(target), num_cores(target))
        if passes > 1:
            reg, inner = pass_register_tile(p, ob, vector_lanes(target), (reg, inner))
        values = {
            "tile_ic": (p["c"] // ib, ib),
            "tile_oc": (p["o"] // ob // inner, inner, ob),
            "tile_ow": (p["ow"] // reg, reg),
            "unroll_kw": True,
            "order": "kw_outer",
            "ic_passes": passes,
        }
        return with_pad(values, p, "copy")

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        p = self.validate(task)
        cfg = check_config(self.space(task, target), config, "conv2d")
        ib, ob = cfg["tile_ic"][1], cfg["tile_oc"][2]
        cfg["oc_inner"] = cfg["tile_oc"][1]
        data = te.placeholder((p["n"], p["c"] // ib, p["h"], p["w"], ib), name="data")
        weight = te.placeholder(
            (p["o"] // ob, p["c"] // ib, p["kh"], p["kw"], ib, ob), name="weight"
        )
        conv = conv2d_nchwc(data, weight, p["strides"], p["padding"], p["dilation"], name="conv")
        passes = math.gcd(cfg["ic_passes"], cfg["tile_ic"][0])
        if passes > 1:
            out, extra, steps = pass_blocked_conv_schedule(conv, p, cfg, ob, passes)
        else:
            out, extra, steps = blocked_conv_schedule(conv, p, cfg, ob, columns_outer=True)
        return blocked_conv_kernel(
            task, [data, weight], extra, out, steps, ib, ob, f"OIHW{ib}i{ob}o"
        )


def blocked_conv_schedule(
    conv: te.Tensor,
    p: dict[str, Any],
    cfg: dict[str, Any],
    ob: int,
    columns_outer: bool = False,
) -> tuple[te.Tensor, list, list[S.Step]]:
    """The epilogue, padding and register-tiled micro-kernel of a blocked conv (dense or
    grouped: both compute NCHW[x]c from the same axes): (out, the epilogue's extra inputs,
    steps); `columns_outer` as in `register_tile_steps`."""
    out, extra = build_epilogue(
        conv, p["epilogue"], lambda i: (i[1], i[4]), (p["o"] // ob, ob), "out"
    )
    steps, acc = accumulator(conv, out)
    if any(p["padding"]):
        steps += pad_steps("conv_pad", ("n", "icc", "h", "w", "icb"), cfg["pad"])
    order = ("icc", "kh", "kw", "icb") if cfg["order"] == "kw_outer" else ("icc", "kh", "icb", "kw")
    unroll = ("kw",) if cfg["unroll_kw"] else ()
    steps += register_tile_steps(
        out.name, acc, ("n", "occ", "oh", "ow", "ocb"), cfg, order, unroll, columns_outer
    )
    return out, extra, steps


def register_tile(p: dict[str, Any], ob: int, lanes: int) -> tuple[int, int]:
    """The one-pass default's register tile: (columns, output vectors).

    A 1x1 conv has no kernel window to reuse its loads over: a tile of 4-8 columns x two
    output vectors loads 6-10 values per 8-16 FMAs, 14 columns x one vector 15 per 14
    (resnext50 and resnet50 untuned: 6-9% less time, one core). Not where no such column
    tile divides the row (13 columns: one). With AVX-512's 32 registers a kernel window's
    tile takes the same 4-8 columns x two vectors (in the columns-outer order): ResNet-50's
    3x3 convs 5-10% less time than 14 x 1, its 7x7 stem 15-20%. With AVX2's 16 registers
    the columns stop at SHORT_COLUMNS_16 (14 accumulators), for a kernel window too."""
    reg = max(d for d in divisors(p["ow"]) if d <= 14)
    short = max(d for d in divisors(p["ow"]) if d <= short_columns(lanes))
    even = (p["o"] // ob) % 2 == 0
    if even and short >= 4:
        reg = short
    inner = 2 if reg <= 8 and even else 1
    return reg, inner


SHORT_COLUMNS_16 = 7  # the two-vector tile's columns where 16 vector registers hold it


def short_columns(lanes: int) -> int:
    """The most columns of a two-vector register tile: 8 (16 accumulators) with AVX-512's
    32 registers; SHORT_COLUMNS_16 with AVX2's 16, where 7 x 2 leaves the weight vectors
    and the broadcast two registers (gcc folds the rest into memory operands). One Zen 3
    core (AVX2), default blocks of 8, kernel alone by CPU time
    (`benchmarks/resnet_convs.py`-style): 7 x 2 against 14 x 1 (the old 3x3 default) 4.02
    against 4.36 ms at 56 x 56 (64 -> 64), 4.23 against 4.59 at 14 x 14 (256), 5.98 against
    7.35 at 56 -> 28 stride 2; 7 x 2 against 8 x 2 (the old 1x1 default) 0.48 against 0.55
    ms at 56 x 56 (64 -> 64)."""
    return 8 if lanes >= 16 else SHORT_COLUMNS_16


def pass_counts(p: dict[str, Any]) -> list[int]:
    """The `ic_passes` values of a task's space: passes of at least MIN_PASS_CHANNELS input
    channels, and none but one where the widest map of partial sums a config could ask for
    (4 output blocks of the largest block) would not fit MAX_SPACE_MAP_BYTES of stack."""
    ob = p["blocks"][1] if p["blocks"] else 64  # tile_oc's largest block (max_factor)
    if p["n"] * p["oh"] * p["ow"] * ob * 4 * 4 > MAX_SPACE_MAP_BYTES:
        return [1]
    return [n for n in IC_PASSES if n == 1 or p["c"] // n >= MIN_PASS_CHANNELS]


def default_passes(p: dict[str, Any], ib: int, ob: int, lanes: int, cores: int) -> int:
    """How many passes the default reduction makes over the output map: one per
    PASS_CHANNELS input channels where the reduction is that long, else one.

    With one pass a register tile runs the whole reduction: it re-reads every input
    channel block's weights (fcn_resnet50's 2048 -> 512 3x3 head: 1.2 MB per 16 output
    channels, past L2) and one column strip of every input channel plane (2048 planes of
    50 KB apart for its 1x1 convs) per tile, from L3. In slices of 128 channels (what ORT's
    NCHWc convs batch) a slice's weights and input planes stay in L2 while every tile of
    the map uses them, and the map of partial sums (one per parallel iteration) in L1/L2:
    fcn_resnet50's head 1.75x -> 1.1x ORT's time, its 2048 -> 512 1x1 conv 3.6x -> 1.0x
    (one core). Not where the map outgrows MAX_MAP_BYTES, nor where the output channels
    alone (the only parallel loop left) would not keep every core busy twice over. With
    fewer than 16 lanes (AVX2) `short_vector_passes` decides."""
    if lanes < 16:
        return short_vector_passes(p, ib, ob, cores)
    blocks, oc_tiles = p["c"] // ib, p["n"] * p["o"] // (ob * 4)
    map_bytes = p["oh"] * p["ow"] * ob * 4 * 4  # up to 4 output blocks (`pass_register_tile`)
    want = p["c"] // PASS_CHANNELS
    if want < 2 or map_bytes > MAX_MAP_BYTES or oc_tiles < 2 * cores:
        return 1
    return max((n for n in IC_PASSES if n <= want and blocks % n == 0), default=1)


PASS_CHANNELS_16 = 64  # input channels per pass of a 1x1 conv's default with AVX2...
MIN_PASSES_16, MAX_PASSES_16 = 4, 16  # ...in this many passes


def short_vector_passes(p: dict[str, Any], ib: int, ob: int, cores: int) -> int:
    """`default_passes` with AVX2's 8-lane blocks: a stride-1 1x1 conv over 128 or more
    input channels in passes of at most PASS_CHANNELS_16 channels, MIN_PASSES_16 to
    MAX_PASSES_16 of them, over a map of the one-pass tile's output vectors
    (`register_tile`). In one pass a 7 x 2 tile reads 16+ input channel blocks a plane
    apart (100 KB at 56 x 56) per column strip and ran at 11-40 GFLOP/s. One Zen 3 core,
    kernel alone by CPU time, one pass against the default's passes (ORT's conv): at 56 x 56
    128 -> 128 2.48 against 2.13 ms in 4 (2.80), 192 -> 128 4.40 / 2.30 (3.33), 224 -> 128
    5.48 / 2.79 (4.68) (DenseNet's), 256 -> 64 7.97 / 3.15 (3.56), 256 -> 128 18.3 / 8.3
    (8.9); 1024 -> 256 at 14 x 14 2.56 / 2.27 in 16 (2.17); 2048 -> 512 at 7 x 7 2.03 /
    1.57 in 16 (1.76). Not for kernel windows (not measured) nor strided convs (256 -> 512
    at stride 2, 56 -> 28: 5.14 ms in one pass, 6.31 in 4)."""
    if p["kh"] * p["kw"] > 1 or p["strides"] != (1, 1) or p["c"] < 2 * PASS_CHANNELS_16:
        return 1
    inner = register_tile(p, ob, 8)[1]
    map_bytes = p["oh"] * p["ow"] * ob * inner * 4
    oc_tiles = p["n"] * p["o"] // (ob * inner)
    if map_bytes > MAX_MAP_BYTES or oc_tiles < 2 * cores:
        return 1
    want = min(max(MIN_PASSES_16, p["c"] // PASS_CHANNELS_16), MAX_PASSES_16)
    blocks = p["c"] // ib
    return max((n for n in IC_PASSES if n <= want and blocks % n == 0), default=1)


def pass_register_tile(
    p: dict[str, Any], ob: int, lanes: int, fallback: tuple[int, int]
) -> tuple[int, int]:
    """The register tile of a pass-blocked default: 28 accumulators of the 32 vector
    registers (AVX-512), as 7 columns x 4 output vectors for a kernel window (fewest
    loads per FMA: measured 219 against 200 GFLOP/s for 14 x 2 on fcn_resnet50's head)
    or 14 x 2 for a 1x1 conv (227 against 208 on its 2048 -> 512 conv); else `fallback`."""
    blocks = p["o"] // ob
    window = p["kh"] * p["kw"] > 1
    for reg, inner in ((7, 4), (14, 2)) if window else ((14, 2), (7, 4)):
        if lanes >= 16 and p["ow"] % reg == 0 and blocks % inner == 0:
            return reg, inner
    return fallback


def pass_blocked_conv_schedule(
    conv: te.Tensor, p: dict[str, Any], cfg: dict[str, Any], ob: int, passes: int
) -> tuple[te.Tensor, list, list[S.Step]]:
    """A blocked conv whose reduction runs in `passes` slices of input-channel blocks, each
    over the whole output map of `oc_inner` output blocks: the accumulator is that map (a
    local buffer per parallel iteration, zeroed once), so one slice's weights serve every
    column block while they are in the cache; the epilogue runs on the finished map."""
    out, extra = build_epilogue(
        conv, p["epilogue"], lambda i: (i[1], i[4]), (p["o"] // ob, ob), "out"
    )
    steps, acc = accumulator(conv, out)
    if any(p["padding"]):
        steps += pad_steps("conv_pad", ("n", "icc", "h", "w", "icb"), cfg["pad"])
    reg_n, inner = cfg["tile_ow"][1], cfg["tile_oc"][1]
    chunk = cfg["tile_ic"][0] // passes
    name = out.name
    steps += [
        S.Split(name, "occ", (inner,)),
        S.Reorder(name, ("n", "occ.0", "occ.1", "oh", "ow", "ocb")),
        S.Fuse(name, ("n", "occ.0")),
        S.Parallel(name, "n+occ.0"),
        S.Vectorize(name, "ocb"),
        S.ComputeAt(acc, name, "n+occ.0"),
        S.Split(acc, "icc", (chunk,)),
        S.Split(acc, "ow", (reg_n,)),
    ]
    inner_red = ("kh", "kw", "icb") if cfg["order"] == "kw_outer" else ("kh", "icb", "kw")
    steps += [
        S.Reorder(
            acc,
            ("n", "icc.0", "oh", "ow.0", "icc.1", *inner_red, "ow.1", "occ", "ocb"),
        ),
        S.Unroll(acc, "ow.1"),
        S.Unroll(acc, "occ"),
        S.Vectorize(acc, "ocb"),
    ]
    if cfg["unroll_kw"]:
        steps.append(S.Unroll(acc, "kw"))
    return out, extra, steps


def blocked_conv_kernel(
    task: Task,
    inputs: list[te.Tensor],
    extra,
    out: te.Tensor,
    steps: list[S.Step],
    ib: int,
    ob: int,
    weight_layout: str,
) -> KernelDef:
    """KernelDef of a conv in NCHW[ib]c -> NCHW[ob]c with its epilogue inputs (bias as
    [O/ob, ob], residual in the output layout)."""
    out_layout = f"NCHW{ob}c"

    def pack_out(x):
        return L.transform(x, "NCHW", out_layout)

    packers = [
        lambda x: L.transform(x, "NCHW", f"NCHW{ib}c"),
        lambda x: L.transform(x, "OIHW", weight_layout),
    ]
    for kind, _ in extra:
        packers.append((lambda x: x.reshape(-1, ob).copy()) if kind == "bias" else pack_out)
    return KernelDef(
        inputs=[*inputs, *(t for _, t in extra)],
        outputs=[out],
        steps=steps,
        packers=packers,
        output_packer=pack_out,
        io_key=io_key(task, ib=ib, ob=ob),
        notes={
            "data_layout": f"NCHW{ib}c",
            "out_layout": out_layout,
            "weight_layout": weight_layout,
        },
    )


def padded_channels(channels: int, lanes: int) -> int:
    """The channel count a network keeps an activation of `channels` channels in: the next
    whole vector where the widest block that divides it is half a vector or less (58, 116,
    232: blocks of 2, 4 and 8 on 16 lanes, so shufflenet_v2's 1x1 convs ran 2-8 lane
    vectors at ~20-80 GFLOP/s) and the padding costs at most 1/8 more work; else
    `channels`. Untuned, one core: shufflenet_v2 1.02x -> 0.92x ONNX Runtime's time against
    quarter vectors only, mobilenet_v3_large (72, 120, ...) 0.95x -> 0.86x, regnet_y_400mf
    (104, 440) 0.90x -> 0.78x, squeezenet1_1 (its 1000-way conv) 1.27x -> 1.09x. The padded
    lanes hold zeros where a conv writes them (zero weights and bias) and are read only
    through zero weights (see `compiler.layouts`)."""
    full = -(-channels // lanes) * lanes
    if channels % 2 or best_block(channels, lanes) * 2 > lanes or full * 8 > channels * 9:
        return channels
    return full


def best_block(channels: int, lanes: int) -> int:
    """The largest power-of-two divisor of `channels` up to the vector width (or all of a
    small channel count, e.g. 3 for RGB input)."""
    for b in (lanes, lanes // 2, lanes // 4, 2):
        if b >= 2 and channels % b == 0:
            return b
    return channels if channels <= 64 else 1
