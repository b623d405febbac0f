"""Constant folding: a node whose inputs are all params is evaluated once, at compile time,
and its outputs become params (e.g. a reshape or transpose of a weight, arithmetic on
constants left after import)."""

from __future__ import annotations

from tunefarm.graph.interpret import run_node
from tunefarm.graph.ir import Graph


def fold_constants(graph: Graph) -> Graph:
    g = graph.copy()
    kept = []
    for node in g.nodes:
        if node.inputs and all(g.is_param(i) for i in node.inputs):
            results = run_node(node, [g.params[i] for i in node.inputs])
            for name, array in zip(node.outputs, results, strict=True):
                g.params[name] = array
        else:
            kept.append(node)
    g.nodes = kept
    return g
