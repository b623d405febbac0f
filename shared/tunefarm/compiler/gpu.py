"""Lowering for device targets (GPUs): every value in its logical layout (NCHW, row-major),
every node one kernel of the target's GPU templates.

The CPU lowering in `network.py` already does the right thing for most nodes on a GPU: the
GPU backend's `anchor_variants` keep conv2d and dense in logical layouts (so no layout
transform is ever inserted), and elementwise ops, concat, split, reshape and the generic ops
build the same tasks, which the GPU templates answer. What differs is kept here: pools (the
CPU lowering fits them to a channel block) and the ops no GPU kernel exists for, refused
naming the node.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tunefarm.backends import get_backend, parse_target
from tunefarm.graph.ir import Node
from tunefarm.task import Task

if TYPE_CHECKING:
    from tunefarm.compiler.network import _Lowering

# graph ops that have no GPU kernel yet (the message names the node)
UNSUPPORTED = {
    "qconv2d": "int8 networks run on cpu and vta only",
    "quantize": "int8 networks run on cpu and vta only",
    "dequantize": "int8 networks run on cpu and vta only",
}


def is_device_target(target: str) -> bool:
    """Whether networks for `target` run on a device (its backend opens device networks)."""
    return hasattr(get_backend(parse_target(target).kind), "open_network")


def lower(low: _Lowering, node: Node) -> bool:
    """Lower `node` for a device target if it needs anything other than the common
    lowering; False to let `_Lowering.lower` go on."""
    if node.op in UNSUPPORTED:
        raise low.error(f"no kernel for {node.op} on {low.target}: {UNSUPPORTED[node.op]}")
    if node.op in ("pool2d", "global_pool2d"):
        pool(low, node)
        return True
    return False


def pool(low: _Lowering, node: Node) -> None:
    """A pool on its logical input, the template's default config (pools are not tuned)."""
    data = node.inputs[0]
    params: dict[str, Any] = {"data": low.g.shape(data), "kind": node.attrs.get("kind", "max")}
    if node.op == "pool2d":
        for k in ("kernel", "strides", "padding", "dilation", "ceil_mode", "count_include_pad"):
            params[k] = node.attrs[k]
    task = Task.make(node.op, target=low.target, **params)
    args = [low.logical(data)]
    out_shape = low.g.shape(node.outputs[0])
    low.call_default(task, [*args, low.define(node.outputs[0], out_shape, None)])
