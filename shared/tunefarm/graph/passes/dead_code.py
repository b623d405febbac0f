"""Dead-code elimination: drop nodes whose outputs nobody reads, then unused params/values."""

from __future__ import annotations

from tunefarm.graph.ir import Graph


def eliminate_dead_code(graph: Graph) -> Graph:
    g = graph.copy()
    live = set(g.outputs)
    kept = []
    for node in reversed(g.nodes):  # reverse topological order: readers before producers
        if any(o in live for o in node.outputs):
            kept.append(node)
            live.update(node.inputs)
            live.update(node.outputs)  # a kept split's unread outputs still need their values
    g.nodes = kept[::-1]
    g.params = {k: v for k, v in g.params.items() if k in live}
    runtime = {v.name for v in g.inputs}
    g.values = {k: v for k, v in g.values.items() if k in live or k in runtime}
    return g
