"""How many multiply-adds a model asks for, counted on the ONNX graph as any runtime would run
it directly (no Winograd, no pruning), and how much of that is in 3x3 stride-1 convs, the
ones a fast (Winograd) algorithm can do in fewer multiplications.

Why: a runtime's time over these FLOPs is its effective rate, and one core cannot run
direct multiply-adds faster than its FMA ceiling (`benchmarks/fma_peak.c`). So a goal like
"0.7x ONNX Runtime's time" needs ORT's effective rate / 0.7; where that is above the ceiling,
no schedule reaches it, only fewer multiplications do (`models.py --collect ... --peak`).

    python benchmarks/model_flops.py MODEL.onnx [...]

Counted: Conv (2 x output elements x input channels per group x kernel area), Gemm and
MatMul (2 x M x N x K, times the broadcast batch). Everything else (elementwise, pools,
normalisations, attention's softmax) is left out: it is memory traffic, not FMAs.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import onnx
from onnx import shape_inference


@dataclass(frozen=True)
class Flops:
    total: float  # direct FLOPs (2 per multiply-add) of Conv, Gemm and MatMul
    winograd_eligible: float  # of which in 3x3 stride-1 dilation-1 ungrouped convs

    @property
    def gflop(self) -> float:
        return self.total / 1e9


def _shapes(model: onnx.ModelProto) -> dict[str, list[int]]:
    """Static shapes of every value shape inference can tell (inputs, weights included)."""
    inferred = shape_inference.infer_shapes(model)
    shapes: dict[str, list[int]] = {}
    g = inferred.graph
    for vi in [*g.input, *g.value_info, *g.output]:
        dims = vi.type.tensor_type.shape.dim
        if dims and all(d.HasField("dim_value") for d in dims):
            shapes[vi.name] = [d.dim_value for d in dims]
    for init in g.initializer:
        shapes[init.name] = list(init.dims)
    return shapes


def _attr(node: onnx.NodeProto, name: str, default):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def _conv(node, shapes) -> tuple[float, bool]:
    out, w = shapes.get(node.output[0]), shapes.get(node.input[1])
    if out is None or w is None:
        raise ValueError(f"node {node.name!r} (Conv): shapes unknown to shape inference")
    group = _attr(node, "group", 1)
    flops = 2.0 * math.prod(out) * w[1] * math.prod(w[2:])
    strides = _attr(node, "strides", [1] * (len(w) - 2))
    dilations = _attr(node, "dilations", [1] * (len(w) - 2))
    eligible = (
        list(w[2:]) == [3, 3] and set(strides) == {1} and set(dilations) == {1} and group == 1
    )
    return flops, eligible


def _matmul(node, shapes) -> float:
    a, b, out = (shapes.get(n) for n in (node.input[0], node.input[1], node.output[0]))
    if a is None or out is None:
        raise ValueError(f"node {node.name!r} ({node.op_type}): shapes unknown to shape inference")
    k = a[-2] if node.op_type == "Gemm" and _attr(node, "transA", 0) else a[-1]
    return 2.0 * math.prod(out) * k


def count(model: onnx.ModelProto) -> Flops:
    """Direct FLOPs of the model's main graph (see the module docstring)."""
    shapes = _shapes(model)
    total = eligible = 0.0
    for node in model.graph.node:
        if node.op_type == "Conv":
            flops, winograd = _conv(node, shapes)
            total += flops
            eligible += flops if winograd else 0.0
        elif node.op_type in ("Gemm", "MatMul"):
            total += _matmul(node, shapes)
    return Flops(total, eligible)


def main(argv: list[str]) -> int:
    for path in argv:
        f = count(onnx.load(path, load_external_data=False))
        share = f.winograd_eligible / f.total if f.total else 0.0
        print(f"{path}: {f.gflop:.3f} GFLOP direct, {share:.0%} in 3x3 stride-1 convs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
