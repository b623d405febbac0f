"""The float CPU parts of a packed network (the stem before graph_pack's region, the head
after it) compiled natively with the CPU network compiler, for `compiler.packed`.

A segment is a maximal run of consecutive nodes that compute in float (not a packed op, not
quantize / dequantize / layout transform at the region's edges). Each becomes a graph of its
own (inputs: the values it reads from before, outputs: the values read after it), compiled
for `cpu` with the best records given (or default configs), saved as an artifact and loaded
by the runtime's GraphExecutor. Its time is the executor's own timing loop (`tf_net_time`),
so the CPU share of a packed network's time is what compiled kernels take, not numpy.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tunefarm.compiler.network import compile_graph
from tunefarm.graph.ir import Graph, Node, Value
from tunefarm.runtime.executor import GraphExecutor

# ops that stay with the packed region's numpy kernels: the edges and the packed ops
EDGE_OPS = ("conv2d_packed", "int8_add", "quantize", "dequantize", "layout_transform")


@dataclass
class Segment:
    first: int  # index of its first node in the packed graph
    nodes: list[Node]
    graph: Graph
    executor: GraphExecutor | None = None

    def run(self, env: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], float]:
        """Its outputs from `env`, and the seconds of one run (the executor's timing)."""
        assert self.executor is not None
        inputs = {v.name: env[v.name] for v in self.graph.inputs}
        outputs = self.executor.run(inputs)
        return outputs, self.executor.benchmark(repeat=3, number=1).min / 1e3


def float_segments(graph: Graph) -> list[Segment]:
    """The float segments of a packed graph, each with its own graph, not yet compiled."""
    return [
        Segment(first, nodes, _subgraph(graph, first, nodes, k))
        for k, (first, nodes) in enumerate(_runs(graph))
    ]


def _runs(graph: Graph) -> list[tuple[int, list[Node]]]:
    runs: list[tuple[int, list[Node]]] = []
    for i, node in enumerate(graph.nodes):
        if node.op in EDGE_OPS:
            continue
        if runs and runs[-1][0] + len(runs[-1][1]) == i:
            runs[-1][1].append(node)
        else:
            runs.append((i, [node]))
    return runs


def _subgraph(graph: Graph, first: int, nodes: list[Node], index: int) -> Graph:
    made = {o for n in nodes for o in n.outputs}
    read = [i for n in nodes for i in n.inputs]
    inputs = list(dict.fromkeys(i for i in read if i not in made and i not in graph.params))
    later = {i for n in graph.nodes[first + len(nodes) :] for i in n.inputs}
    outputs = [o for n in nodes for o in n.outputs if o in later or o in graph.outputs]
    params = {i: graph.params[i] for i in read if i in graph.params}
    values: dict[str, Value] = {v: graph.value(v) for v in (*inputs, *params, *made)}
    return Graph(
        f"{graph.name}.cpu{index}",
        [graph.value(v) for v in inputs],
        outputs,
        list(nodes),
        params,
        values,
    )


def compile_segments(graph: Graph, workdir: Path, records=None) -> list[Segment]:
    """The float CPU segments of a packed graph, compiled and loaded (host `cpu` target)."""
    workdir.mkdir(parents=True, exist_ok=True)
    segments = float_segments(graph)
    for k, seg in enumerate(segments):
        path = workdir / f"cpu{k}.tfa"
        compile_graph(seg.graph, "cpu", records, optimized=True).save(path)
        seg.executor = GraphExecutor.load(path)
    return segments
