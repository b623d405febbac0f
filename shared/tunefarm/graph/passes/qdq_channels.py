"""Channel padding for int8 convs: a folded QDQ conv with channel counts that are not
multiples of 8 (3 -> 13 -> 27) runs the int8 kernels on counts rounded up to 8 (see WORD).

The int8 kernels read four channels to a 32-bit word and keep uint8 activations in
NCHW[b]c blocks with b >= 4, which no other layout conversion reaches (uint8 values are
not transformed between layouts, `compiler.quantized`). So the graph itself carries the
padding: a padded qconv2d has zero weight rows, bias 0 and requantize scale 1 for its
extra output channels (whatever they hold, the next conv multiplies them by zero weight
columns), and its value keeps the padding while int8 convs, depthwise convs and `qadd`
read it. Where a padded value meets anything else (a DequantizeLinear, a pool, a graph
output) the real channels are sliced back; where an unpadded uint8 value feeds a padded
reader it is padded. Both go through float with scale 1 and zero point 0, which is exact
(a uint8 integer is a float32 integer), and they touch only the edges of an int8 region.
"""

from __future__ import annotations

import numpy as np

from tunefarm.graph.ir import Graph, Node
from tunefarm.graph.passes.dead_code import eliminate_dead_code
from tunefarm.graph.shapes import infer_shapes

# Channel counts are padded to a multiple of 8: the kernels need 4 (a packed word), but a
# count of 4 mod 8 (12, 28, ...) runs in 4-channel blocks, measured 40-80x slower than the
# 8- or 16-channel blocks (a 28 -> 28 3x3 conv at 64x64: 36 ms against 0.54 ms for 32 -> 32
# on AVX-512 VNNI, one core).
WORD = 8


def _up(c: int) -> int:
    return -(-c // WORD) * WORD


class _Padder:
    def __init__(self, graph: Graph):
        self.g = graph.copy()
        self.producers = graph.producers()
        self.nodes: list[Node] = []
        self.padded: dict[str, str] = {}  # value -> its channel-padded twin
        self.unpadded: set[str] = set()  # padded values whose original name is defined again

    # -- edges between padded and plain uint8 values --------------------------------------
    def _chain(self, src: str, dst: str, shape_op: str, attrs: dict, tag: str) -> None:
        """dst = quantize(shape_op(dequantize(src))), all at scale 1, zero point 0."""
        g = self.g
        f_in, f_out = g.unique_name(f"{src}.{tag}_f"), g.unique_name(f"{dst}.{tag}_g")
        q = {"scale": 1.0, "zero_point": 0}
        self.nodes += [
            Node(g.unique_name(f"{src}.{tag}_dq"), "dequantize", [src], [f_in], q),
            Node(g.unique_name(f"{src}.{tag}"), shape_op, [f_in], [f_out], attrs),
            Node(
                g.unique_name(f"{dst}.{tag}_q"), "quantize", [f_out], [dst], {**q, "dtype": "uint8"}
            ),
        ]

    def pad_value(self, value: str) -> str:
        """The channel-padded twin of uint8 NCHW `value` (made once)."""
        if value in self.padded:
            return self.padded[value]
        n, c, h, w = self.g.shape(value)
        twin = self.g.unique_name(f"{value}.pad{_up(c)}")
        pads = [0, 0, 0, 0, 0, _up(c) - c, 0, 0]
        quant = self.producers.get(value)
        if (
            quant is not None
            and quant.op == "quantize"
            and not isinstance(quant.attrs["scale"], list)
        ):
            # a float value quantized here (the network's input): pad the float, quantize it
            f = self.g.unique_name(f"{quant.inputs[0]}.cpad")
            pad = Node(f"{f}.node", "pad", [quant.inputs[0]], [f], {"pads": pads, "value": 0.0})
            self.nodes += [pad, Node(f"{quant.name}.cpad", "quantize", [f], [twin], quant.attrs)]
        else:
            self._chain(value, twin, "pad", {"pads": pads, "value": 0.0}, "cpad")
        self.padded[value] = twin
        self.unpadded.add(value)  # the original stays defined
        return twin

    def unpad(self, value: str) -> None:
        """Define `value` (real channels) again from its padded twin, once."""
        if value in self.unpadded:
            return
        c = self.g.shape(value)[1]
        attrs = {"axis": 1, "begin": 0, "end": c}
        self._chain(self.padded[value], value, "slice", attrs, "cslice")
        self.unpadded.add(value)

    # -- the nodes ------------------------------------------------------------------------
    def qconv(self, node: Node) -> Node:
        g, a = self.g, node.attrs
        x, w = node.inputs[0], g.params[node.inputs[1]]
        c = g.shape(x)[1]
        depthwise = int(a.get("groups", 1)) > 1
        o = w.shape[0]
        pad_out = o % WORD != 0
        if (c % WORD == 0 and not pad_out) or a.get("out_dtype", "uint8") != "uint8":
            return node
        xp = self.pad_value(x) if (c % WORD or x in self.padded) else x
        cp, op_ = _up(c), _up(o)
        ins = list(node.inputs)
        ins[0] = xp
        wp = np.zeros((op_, 1 if depthwise else cp, *w.shape[2:]), np.int8)
        wp[:o, : w.shape[1]] = w
        ins[1] = g.add_param(f"{node.name}.weight_p", wp)
        attrs = dict(a)
        if depthwise:
            attrs["groups"] = op_
        for i, fill in ((2, 0), (3, 1.0)):
            arr = g.params[node.inputs[i]]
            ins[i] = g.add_param(
                f"{node.name}.p{i}", np.concatenate([arr, np.full(op_ - o, fill, arr.dtype)])
            )
        if isinstance(a.get("weight_scale"), list):
            attrs["weight_scale"] = list(a["weight_scale"]) + [1.0] * (op_ - o)
        if len(ins) > 4:
            ins[4] = self.pad_value(ins[4])
        out = node.outputs[0]
        if not pad_out:  # only the input side was padded
            return Node(node.name, node.op, ins, [out], attrs)
        twin = g.unique_name(f"{out}.pad{op_}")
        self.padded[out] = twin
        return Node(node.name, node.op, ins, [twin], attrs)

    def qadd(self, node: Node) -> Node:
        if not any(v in self.padded for v in node.inputs):
            return node
        ins = [self.pad_value(v) for v in node.inputs]
        out = node.outputs[0]
        self.padded[out] = self.g.unique_name(f"{out}.pad{_up(self.g.shape(out)[1])}")
        return Node(node.name, node.op, ins, [self.padded[out]], node.attrs)

    def other(self, node: Node) -> Node:
        x = node.inputs[0] if node.inputs else None
        per_tensor = not isinstance(node.attrs.get("scale"), list)
        if node.op == "dequantize" and x in self.padded and x not in self.unpadded and per_tensor:
            # dequantize the padded twin, then slice the float: no round trip through uint8
            f = self.g.unique_name(f"{node.outputs[0]}.padded")
            c = self.g.shape(x)[1]
            self.nodes.append(Node(node.name, node.op, [self.padded[x]], [f], node.attrs))
            attrs = {"axis": 1, "begin": 0, "end": c}
            return Node(
                self.g.unique_name(f"{node.name}.cslice"), "slice", [f], list(node.outputs), attrs
            )
        for v in node.inputs:
            if v in self.padded:
                self.unpad(v)
        return node

    def run(self) -> Graph:
        for node in self.g.nodes:
            if node.op == "qconv2d" and node.inputs[1] in self.g.params:
                new = self.qconv(node)
            elif node.op == "qadd" and len(self.g.shape(node.inputs[0])) == 4:
                new = self.qadd(node)
            else:
                new = self.other(node)
            self.nodes.append(new)
        for v in self.g.outputs:
            if v in self.padded:
                self.unpad(v)
        self.g.nodes = self.nodes
        return eliminate_dead_code(infer_shapes(self.g))


def pad_int8_channels(graph: Graph) -> Graph:
    """The graph with every int8 conv's channels padded to packed words (see the module
    doc); unchanged when all are multiples of WORD already."""
    convs = [n for n in graph.nodes if n.op == "qconv2d" and n.inputs[1] in graph.params]
    if all(
        graph.shape(n.inputs[1])[0] % WORD == 0 and graph.shape(n.inputs[0])[1] % WORD == 0
        for n in convs
    ):
        return graph
    return _Padder(graph).run()
