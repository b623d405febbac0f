"""SiLU recognition: an export's `Mul(x, Sigmoid(x))` becomes one `silu` node.

EfficientNet's activation is x * sigmoid(x) (PyTorch's SiLU), which both ONNX exporters
write as a Sigmoid and a Mul: two passes over every activation, the Mul reading x and the
sigmoid's output again. Untuned efficientnet_b0 spent 5.2 of its 12 ms there. One `silu`
elementwise kernel computes x * sigmoid(x) in one pass.
"""

from __future__ import annotations

from tunefarm.graph.ir import Graph, Node


def fuse_silu(graph: Graph) -> Graph:
    """Every `mul(x, sigmoid(x))` (either operand order) whose sigmoid output nothing else
    reads becomes `silu(x)`."""
    g = graph.copy()
    readers, producers = g.consumers(), g.producers()
    replace: dict[str, Node] = {}
    drop: set[str] = set()
    for node in g.nodes:
        if node.op != "mul" or len(node.inputs) != 2:
            continue
        for x, s in (node.inputs, node.inputs[::-1]):
            sig = producers.get(s)
            if (
                sig is not None
                and sig.op == "sigmoid"
                and sig.inputs[0] == x
                and len(readers.get(s, [])) == 1
                and s not in g.outputs
            ):
                replace[node.name] = Node(node.name, "silu", [x], list(node.outputs), {})
                drop.add(sig.name)
                break
    if not replace:
        return graph
    g.nodes = [replace.get(n.name, n) for n in g.nodes if n.name not in drop]
    return g
