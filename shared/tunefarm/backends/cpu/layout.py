"""The CPU backend's layout policy for network tasks: which channel blocks a network keeps
its activations in, and which alternative algorithms a node has.

A conv task extracted from a network is pinned to the blocks the network keeps (`blocks:
[ib, ob]`, see `conv2d.network_blocks`), so every config the tuner measures reads and writes
its neighbours' layouts. A 3x3 stride-1 conv, and a stride-2 one with a large enough output
(`winograd_pays`), also gets a `conv2d_winograd` task, an alternative for the same nodes (as
AutoTVM extracts one task per implementation).
"""

from __future__ import annotations

from tunefarm.backends.cpu.conv2d import conv_params, network_blocks, padded_channels
from tunefarm.backends.cpu.group_conv2d import group_blocks
from tunefarm.backends.cpu.target import parse, vector_lanes
from tunefarm.backends.cpu.winograd import default_m, matrices, winograd_eligible
from tunefarm.task import Task


def int8_block(channels: int, lanes: int) -> int:
    """The channel block of an int8 network's uint8 activations: the widest of one int32
    vector, half of it, or one packed word (4 channels) that divides the channels."""
    return next((b for b in (lanes, lanes // 2, 4) if b >= 4 and channels % b == 0), 4)


def padded_args(args: dict, lanes: int) -> dict:
    """A dense or depthwise conv's args with its channels padded to whole vectors
    (`padded_channels`): the conv the network runs, on activations whose padded lanes are
    zero, with zero weights for them. The network compiler pads the weights and bias and
    holds the activations padded (`compiler.layouts.physical_shape`)."""
    n, c, h, w = args["data"]
    o, _, kh, kw = args["weight"]
    groups = int(args.get("groups", 1))
    if groups == 1:
        cp, op, gp = padded_channels(c, lanes), padded_channels(o, lanes), 1
    else:  # depthwise: one channel count
        cp = op = gp = padded_channels(c, lanes)
    if (cp, op) == (c, o):
        return args
    return {**args, "data": [n, cp, h, w], "weight": [op, cp // gp, kh, kw], "groups": gp}


def anchor_variants(task: Task) -> list[Task]:
    """The tasks that can run an anchor node given as a logical task, the direct one first."""
    if task.op == "depthwise_conv2d_int8":
        b = int8_block(task.args["data"][1], vector_lanes(parse(task.target)))
        return [Task.make(task.op, target=task.target, **{**task.args, "blocks": [b, b]})]
    if task.op == "conv2d_int8":
        lanes = vector_lanes(parse(task.target))
        c, o = task.args["data"][1], task.args["weight"][0]
        blocks = [int8_block(-(-c // 4) * 4, lanes), int8_block(o, lanes)]
        return [Task.make(task.op, target=task.target, **{**task.args, "blocks": blocks})]
    if task.op != "conv2d":
        return [task]
    args = task.args
    c, o, groups = args["data"][1], args["weight"][0], int(args.get("groups", 1))
    lanes = vector_lanes(parse(task.target))
    if groups != 1 and not groups == c == o:
        blocks = group_blocks(c, o, groups, lanes)
        if blocks is None:  # a block would split a group: the generic template, in NCHW
            return [task]
        return [Task.make("conv2d", target=task.target, **args, blocks=list(blocks))]
    args = padded_args(args, lanes)
    c, o, groups = args["data"][1], args["weight"][0], int(args.get("groups", 1))
    blocks = network_blocks(c, o, lanes, groups)
    pinned = Task.make("conv2d", target=task.target, **args, blocks=list(blocks))
    if winograd_pays(conv_params(pinned)):
        return [pinned, Task.make("conv2d_winograd", target=task.target, **pinned.args)]
    return [pinned]


MIN_STRIDED_OUTPUT = 14 * 14  # output positions from which a stride-2 Winograd conv pays


def winograd_pays(p: dict) -> bool:
    """Whether a conv gets a Winograd alternative: every eligible stride-1 conv, and a
    stride-2 one whose output has at least MIN_STRIDED_OUTPUT positions. Below that the
    transformed weights (25 per 9 taps) outweigh the products saved: resnet50's stride-2 3x3
    convs, one core, default configs, Winograd against direct: 1.90 against 2.2-2.5 ms at
    56 -> 28 (128 channels), 1.78 against 2.20 at 28 -> 14 (256), 2.40 against 2.23 at
    14 -> 7 (512)."""
    if not winograd_eligible(p):
        return False
    return p["strides"] == (1, 1) or p["oh"] * p["ow"] >= MIN_STRIDED_OUTPUT


def untuned_variant(variants: list[Task]) -> Task:
    """Of a node's variants (`anchor_variants`), the one a compile without records runs: the
    Winograd conv where `winograd_by_default` says it beats the direct one, else the first."""
    for task in variants[1:]:
        if task.op == "conv2d_winograd" and winograd_by_default(conv_params(task)):
            return task
    return variants[0]


MIN_DEFAULT_CHANNELS = 16  # input channels from which an untuned compile runs Winograd
FEW_TILES = 16  # default-m Winograd tiles below which transformed weights must be small...
MAX_FEW_TILE_WEIGHTS = 1 << 20  # ...at most this many bytes (about a core's L2)


def winograd_by_default(p: dict) -> bool:
    """Whether an untuned compile runs a conv with its Winograd alternative rather than the
    direct kernel: where the network gives it one (`winograd_pays`) and it reads at least
    MIN_DEFAULT_CHANNELS input channels, so the input and output transforms are shared by a
    vector of channels. Both at default configs, one core (`benchmarks/winograd_convs.py`
    over resnet50, googlenet, densenet121, regnet_y_400mf, resnext50): Winograd / direct
    0.31-0.69 on every stride-1 conv from 16 channels up, 1.00 at 512 -> 512 on 7x7; 0.85
    and 0.92 on resnet50's stride-2 convs (128 at 56 -> 28, 256 at 28 -> 14); 2.5 on
    regnet's RGB stem (3 -> 32, stride 2), whose 3 channels share nothing. Nor where the
    default tile leaves few tiles over large transformed weights (`few_tiles_over_big_weights`)."""
    return winograd_pays(p) and p["c"] >= MIN_DEFAULT_CHANNELS and not few_tiles_over_big_weights(p)


def few_tiles_over_big_weights(p: dict) -> bool:
    """Whether the default Winograd kernel (m = 4 at stride 1, 2 at stride 2) would use each
    transformed weight on fewer than FEW_TILES tiles while they outgrow MAX_FEW_TILE_WEIGHTS,
    so it streams them from L3 for little work: on a 7 x 7 map (4 tiles of 4 x 4) 512 -> 512
    holds 37.7 MB of them. Intel Xeon (AVX-512 + VNNI), one core, Winograd / direct at
    default configs (`benchmarks/winograd_convs.py`): 1.65 at 512 -> 512, 1.59 at 192 -> 384,
    1.20 at 160 -> 320 (7 x 7; 1.00, 0.69 and 0.51 on an AMD EPYC), while 32 -> 128 and
    48 -> 128 at 7 x 7 (0.6-0.9 MB) stay at 0.51-0.61 and 13 x 13 and up (16+ tiles) at
    0.39-0.94."""
    m = default_m(p)
    alpha = matrices(m, p["strides"][0])[0].shape[0]  # the input tile's side
    tiles = -(-p["oh"] // m) * -(-p["ow"] // m)
    return tiles < FEW_TILES and alpha * alpha * p["c"] * p["o"] * 4 > MAX_FEW_TILE_WEIGHTS
