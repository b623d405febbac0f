"""The graph ops of a network packed for an int8 GEMM accelerator (VTA): shape rules and numpy
kernels, registered by `graph.shapes` and `graph.interpret` like the other ops.

  conv2d_packed  [data (int8 NCHW{b}n{i}c), weight (int8 OIHW{o}o{i}i), bias (int32 [O])]
                 strides padding shift clip([lo, hi]) -> int8 NCHW{b}n{o}c:
                 clip((conv(data, weight) + bias) >> shift, lo, hi), the conv accumulated
                 in int32 (wrapping) and the shift arithmetic (rounding towards -inf), which
                 is what the accelerator's GEMM core and ALU compute
  int8_add       [a (int8), b (int8)] clip([lo, hi]) -> int8: clip(a + b, lo, hi) in int32,
                 a residual add of two values at the same (global) scale, with ReLU as lo=0

`graph.passes.graph_pack` makes them; their kernels here are the CPU reference that a network
run on the accelerator must equal bit for bit.
"""

from __future__ import annotations

import numpy as np

from tunefarm.graph.ir import GraphError, Node, Value
from tunefarm.ir import layouts
from tunefarm.ir import quant_reference as QR
from tunefarm.ir import reference as R

PACKED_OPS = ("conv2d_packed", "int8_add")


def _fail(node: Node, msg: str) -> GraphError:
    return GraphError(f"{node.where()}: {msg}")


def _clip(node: Node) -> tuple[int, int]:
    lo, hi = (int(v) for v in node.attrs.get("clip", [-128, 127]))
    if not -128 <= lo <= hi <= 127:
        raise _fail(node, f"clip {[lo, hi]} must be lo <= hi within int8 [-128, 127]")
    return lo, hi


def data_layout(batch: int, block: int) -> str:
    return f"NCHW{batch}n{block}c"


def weight_layout(block_out: int, block_in: int) -> str:
    return f"OIHW{block_out}o{block_in}i"


# ---- shape rules
def shape_rule(node: Node, ins: list[Value]) -> list[Value]:
    if node.op == "int8_add":
        _clip(node)
        if len(ins) != 2 or ins[0].shape != ins[1].shape:
            raise _fail(node, "expects two inputs of one shape")
        if ins[0].dtype != "int8" or ins[1].dtype != "int8":
            raise _fail(node, f"inputs must be int8, got {ins[0].dtype}, {ins[1].dtype}")
        return [Value(node.outputs[0], ins[0].shape, "int8")]
    return [_conv_shape(node, ins)]


def _conv_shape(node: Node, ins: list[Value]) -> Value:
    if len(ins) != 3:
        raise _fail(node, f"expects data, weight, bias, got {len(ins)} inputs")
    data, weight, bias = ins
    if (data.dtype, weight.dtype, bias.dtype) != ("int8", "int8", "int32"):
        raise _fail(node, "data and weight must be int8 and bias int32")
    if len(data.shape) != 6 or len(weight.shape) != 6:
        raise _fail(node, "data must be NCHW{b}n{i}c and weight OIHW{o}o{i}i (6-D)")
    nb, icb, h, w, bn, bi = data.shape
    ocb, wicb, kh, kw, bo, wbi = weight.shape
    if (wicb, wbi) != (icb, bi) or bias.shape != (ocb * bo,):
        raise _fail(node, f"weight {list(weight.shape)} / bias {list(bias.shape)} do not fit")
    if not 0 <= int(node.attrs.get("shift", 0)) <= 31:
        raise _fail(node, f"shift {node.attrs.get('shift')} must be in [0, 31]")
    _clip(node)
    s, p = node.attrs.get("strides", [1, 1]), node.attrs.get("padding", [0, 0, 0, 0])
    try:
        oh = R.pool_output_size(h, kh, s[0], p[0], p[2], 1)
        ow = R.pool_output_size(w, kw, s[1], p[1], p[3], 1)
    except ValueError as err:
        raise _fail(node, str(err)) from None
    return Value(node.outputs[0], (nb, ocb, oh, ow, bn, bo), "int8")


# ---- numpy kernels
def conv2d_packed(node: Node, data: np.ndarray, weight: np.ndarray, bias: np.ndarray):
    """The packed conv through the NCHW int8 oracle (exact), in the packed layouts."""
    a = node.attrs
    b, i = data.shape[4], data.shape[5]
    bo = weight.shape[4]
    x = layouts.transform(data, data_layout(b, i), "NCHW")
    k = layouts.transform(weight, weight_layout(bo, i), "OIHW")
    acc = QR.conv2d_int(x, k, 0, 0, a.get("strides", [1, 1]), a.get("padding", [0, 0, 0, 0]))
    acc = (acc.astype(np.int64) + bias.astype(np.int64).reshape(1, -1, 1, 1)).astype(np.int32)
    lo, hi = _clip(node)
    out = np.clip(acc >> int(a.get("shift", 0)), lo, hi).astype(np.int8)
    return layouts.transform(out, "NCHW", data_layout(b, bo))


def kernel(node: Node, args: list[np.ndarray]) -> list[np.ndarray]:
    if node.op == "int8_add":
        lo, hi = _clip(node)
        total = args[0].astype(np.int32) + args[1].astype(np.int32)
        return [np.clip(total, lo, hi).astype(np.int8)]
    return [conv2d_packed(node, *args)]
