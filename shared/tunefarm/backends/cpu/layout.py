"""The CPU backend's layout policy for network tasks: which channel blocks a network keeps
its activations in, and which alternative algorithms a node has.

A conv task extracted from a network is pinned to the blocks the network keeps (`blocks:
[ib, ob]`, see `conv2d.network_blocks`), so every config the tuner measures reads and writes
its neighbours' layouts. A 3x3 stride-1 conv also gets a `conv2d_winograd` task, an
alternative for the same nodes (as AutoTVM extracts one task per implementation).
"""

from __future__ import annotations

from tunefarm.backends.cpu.conv2d import conv_params, network_blocks, padded_channels
from tunefarm.backends.cpu.group_conv2d import group_blocks
from tunefarm.backends.cpu.target import parse, vector_lanes
from tunefarm.backends.cpu.winograd import winograd_eligible
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
    if winograd_eligible(conv_params(pinned)):
        return [pinned, Task.make("conv2d_winograd", target=task.target, **pinned.args)]
    return [pinned]
