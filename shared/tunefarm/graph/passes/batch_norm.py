"""Batch-norm folding: inference-mode batch norm is a per-channel affine map, so after a
conv2d or dense it folds into that op's weights and bias (no kernel left at all); anywhere
else it becomes a per-channel mul and add, which the fusion pass or an elementwise kernel
handles."""

from __future__ import annotations

import numpy as np

from tunefarm.graph.ir import Graph, GraphError, Node, Value


def _affine(g: Graph, bn: Node) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel (scale, shift) with bn(x) = x * scale + shift."""
    _, gamma, beta, mean, var = bn.inputs
    if not all(g.is_param(p) for p in (gamma, beta, mean, var)):
        raise GraphError(f"{bn.where()}: scale, bias, mean and var must be constants (inference)")
    eps = float(bn.attrs.get("epsilon", 1e-5))
    p = g.params
    scale = p[gamma].astype(np.float64) / np.sqrt(p[var].astype(np.float64) + eps)
    shift = p[beta].astype(np.float64) - p[mean].astype(np.float64) * scale
    return scale, shift


def _foldable_producer(
    g: Graph, bn: Node, producers: dict[str, Node], readers: dict[str, list[Node]]
) -> Node | None:
    data = bn.inputs[0]
    prod = producers.get(data)
    if prod is None or prod.op not in ("conv2d", "dense") or data in g.outputs:
        return None
    epilogue = list(prod.attrs.get("epilogue", []))
    if len(readers.get(data, [])) != 1 or epilogue not in ([], ["bias"]):
        return None
    return prod


def _fold_into(g: Graph, prod: Node, bn: Node, scale: np.ndarray, shift: np.ndarray) -> None:
    weight = g.params[prod.inputs[1]]
    shape = (-1,) + (1,) * (weight.ndim - 1)
    new_w = (weight.astype(np.float64) * scale.reshape(shape)).astype(weight.dtype)
    bias = g.params[prod.inputs[2]].astype(np.float64) if len(prod.inputs) > 2 else 0.0
    new_b = (bias * scale + shift).astype(weight.dtype)
    prod.inputs = [
        prod.inputs[0],
        g.add_param(f"{prod.name}.weight_bn", new_w),
        g.add_param(f"{prod.name}.bias_bn", new_b),
    ]
    prod.attrs["epilogue"] = ["bias"]
    prod.outputs = [bn.outputs[0]]


def _decompose(g: Graph, bn: Node, scale: np.ndarray, shift: np.ndarray) -> list[Node]:
    data, out = bn.inputs[0], bn.outputs[0]
    value = g.value(data)
    shape = (-1,) + (1,) * (len(value.shape) - 2)
    dtype = np.dtype(value.dtype)
    s = g.add_param(f"{bn.name}.scale", scale.reshape(shape).astype(dtype))
    b = g.add_param(f"{bn.name}.shift", shift.reshape(shape).astype(dtype))
    mid = g.unique_name(f"{bn.name}.scaled")
    g.values[mid] = Value(mid, value.shape, value.dtype)
    return [
        Node(f"{bn.name}.mul", "mul", [data, s], [mid]),
        Node(f"{bn.name}.add", "add", [mid, b], [out]),
    ]


def fold_batch_norm(graph: Graph) -> Graph:
    g = graph.copy()
    readers, producers = g.consumers(), g.producers()
    nodes: list[Node] = []
    for node in g.nodes:
        if node.op != "batch_norm":
            nodes.append(node)
            continue
        scale, shift = _affine(g, node)
        prod = _foldable_producer(g, node, producers, readers)
        if prod is not None:
            _fold_into(g, prod, node, scale, shift)
            producers[node.outputs[0]] = prod  # the conv now writes the batch norm's output
        else:
            nodes += _decompose(g, node, scale, shift)
    g.nodes = nodes
    return g
