"""A classifier conv's output channels padded to whole vectors, before its global pool.

squeezenet's last conv writes 1000 channels on a 13x13 map, then a global average pool
makes them the logits. 1000 = 8 x 125: its widest channel block on 16 fp32 lanes is 8,
half vectors, so the conv (a quarter of the network's work) ran at half speed (1.6 ms;
ORT 0.8). Padded to 1008 (63 x 16) with zero weights and bias it runs whole vectors
(0.8 ms); the pool then averages 1008 channels and a slice keeps the first 1000, where
the pooled [N, C, 1, 1] value needs no layout transform (`compiler.layouts.same_memory`).
Only convs whose one reader is a global pool: padded channels never reach another op.
The channel count to pad to is the target's business (`graph.extract.for_target` asks
the backend which block the conv's default config would pick).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tunefarm.graph.ir import Graph, Node, Value


def _candidate(g: Graph, conv: Node, readers: dict[str, list[Node]]) -> Node | None:
    """The global pool that alone reads `conv`'s output, when the conv is a plain float
    conv (no groups, no residual in its epilogue)."""
    out = conv.outputs[0]
    users = readers.get(out, [])
    if conv.op != "conv2d" or len(users) != 1 or users[0].op != "global_pool2d":
        return None
    if int(conv.attrs.get("groups", 1)) != 1 or out in g.outputs:
        return None
    if "residual" in conv.attrs.get("epilogue", []) or g.value(out).dtype != "float32":
        return None
    return users[0]


def _pad_rows(g: Graph, name: str, base: str, rows: int) -> str:
    array = g.params[name]
    widths = [(0, rows - array.shape[0])] + [(0, 0)] * (array.ndim - 1)
    return g.add_param(base, np.pad(array, widths))


def _pad(g: Graph, conv: Node, pool: Node, channels: int) -> Node:
    """Pad `conv` to `channels` outputs, the pool with it; the slice that restores the
    pool's value (the caller puts it after the pool)."""
    n, _, h, w = g.shape(conv.outputs[0])
    inputs = [conv.inputs[0], _pad_rows(g, conv.inputs[1], f"{conv.name}.weight_padded", channels)]
    if len(conv.inputs) > 2:
        inputs.append(_pad_rows(g, conv.inputs[2], f"{conv.name}.bias_padded", channels))
    wide = g.unique_name(f"{conv.outputs[0]}.padded")
    g.values[wide] = Value(wide, (n, channels, h, w), "float32")
    pooled = g.unique_name(f"{pool.outputs[0]}.padded")
    g.values[pooled] = Value(pooled, (n, channels, 1, 1), "float32")
    conv.inputs, conv.outputs = inputs, [wide]
    original = pool.outputs[0]
    pool.inputs, pool.outputs = [wide], [pooled]
    o = g.shape(original)[1]
    attrs = {"axis": 1, "begin": 0, "end": o}
    return Node(f"{pool.name}.unpad", "slice", [pooled], [original], attrs)


def pad_pooled_convs(graph: Graph, channels: Callable[[Graph, Node], int]) -> Graph:
    """Every conv read only by a global pool gets `channels(graph, conv)` outputs (zero
    weights and bias in the new ones) when that is more than it has; a slice after the
    pool drops the padded channels."""
    g = graph.copy()
    readers = g.consumers()
    nodes: list[Node] = []
    unpad: dict[str, Node] = {}
    for node in g.nodes:
        pool = _candidate(g, node, readers)
        if pool is not None:
            want = channels(g, node)
            if want > g.shape(node.outputs[0])[1]:
                unpad[pool.name] = _pad(g, node, pool, want)
        nodes.append(node)
        if node.name in unpad:
            nodes.append(unpad[node.name])
    if not unpad:
        return graph
    g.nodes = nodes
    return g
