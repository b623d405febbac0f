"""Lowering of the quantized graph ops (`tunefarm.graph.quant_ops`) inside the network
compiler: `qconv2d` runs the backend's `conv2d_int8` template pinned to the network's
channel blocks, and quantize / dequantize run elementwise where their input is held.

uint8 activations stay in NCHW[b]c between int8 convs; the kernel reads each block as
packed int32 words, which is the same memory seen through an int32 view (an alias buffer).
A quantize node takes its float input in the block its int8 reader wants, so no uint8
value is ever converted between layouts (a transform template is float32 only).
"""

from __future__ import annotations

from typing import Any

from tunefarm.backends import registry
from tunefarm.compiler.layouts import same_memory
from tunefarm.graph.quant_ops import qconv_task
from tunefarm.task import Task


def _blocked(low, value: str, layout: str) -> str:
    """The buffer of uint8 `value`, which must already be in `layout` or be the same bytes
    there (a 1x1 image, as a matmul's reshaped rows: a view, no kernel)."""
    have = low.layout.get(value)
    if have != layout and not same_memory(low.g.shape(value), have, layout):
        raise low.error(
            f"int8 value {value!r} is held in {have or 'NCHW'}, its reader wants {layout}; "
            "uint8 values are not converted between layouts"
        )
    return low.in_layout(value, layout)


def qconv2d(low, node) -> None:
    g = low.g
    x, w = node.inputs[0], node.inputs[1]
    task = registry.anchor_variants(qconv_task(g.shape, node, low.target))[0]
    config = low.choose(task)
    kdef = low.instantiate(task, config)
    ib, ob = task.args["blocks"]
    data = _blocked(low, x, f"NCHW{ib}c")
    shape = low.buffers[data].shape
    if task.op == "conv2d_int8":  # reads packed words; depthwise reads the bytes
        data = low.new_buffer((*shape[:-1], ib // 4), "int32", alias_of=data)
    args = [data, low.param(w, kdef.packers[1], kdef.io_key)]
    for i in (2, 3) if node.attrs.get("out_dtype") != "int32" else (2,):  # int32: no scale
        args.append(low.param(node.inputs[i], kdef.packers[i], f"{kdef.io_key}#{i}"))
    out_layout = kdef.notes["out_layout"]
    if len(node.inputs) > 4:
        args.append(_blocked(low, node.inputs[4], out_layout))
    args.append(low.define(node.outputs[0], kdef.outputs[0].shape, out_layout))
    low.call(task, config, args)


def quantize(low, node) -> None:
    """Elementwise in the block an int8 conv reads (4-D values), else where it is held."""
    x = node.inputs[0]
    shape = low.g.shape(x)
    layout = low.layout.get(x)
    if len(shape) == 4 and shape[1] % 4 == 0:
        probe = Task.make("conv2d_int8", target=low.target, data=shape, weight=(4, shape[1], 1, 1))
        layout = f"NCHW{registry.anchor_variants(probe)[0].args['blocks'][0]}c"
    _elementwise(low, node, low.in_layout(x, layout), layout)


def dequantize(low, node) -> None:
    x = node.inputs[0]
    _elementwise(low, node, low.held(x), low.layout.get(x))


def _elementwise(low, node, buf: str, layout) -> None:
    a = node.attrs
    if isinstance(a["scale"], list):
        raise low.error("per-channel quantize/dequantize of a run-time value is not compiled")
    shape = low.buffers[buf].shape
    params: dict[str, Any] = {"shape": shape, "scale": float(a["scale"])}
    params["zero_point"] = int(a.get("zero_point", 0))
    params["dtype"] = a.get("dtype", "uint8") if node.op == "quantize" else low.buffers[buf].dtype
    task = Task.make(node.op, target=low.target, **params)
    out = low.define(node.outputs[0], shape, layout)
    low.call_default(task, [buf, out])


def qadd(low, node) -> None:
    """Elementwise in the layout `a` is held in (`b` must be the same bytes there)."""
    a, b = node.inputs
    layout = low.layout.get(a)
    bufs = [low.held(a), _blocked(low, b, layout) if layout else low.logical(b)]
    if layout is None:
        bufs[0] = low.logical(a)
    shape = low.buffers[bufs[0]].shape
    at = node.attrs
    params: dict[str, Any] = {"shape": shape, "dtype": low.g.value(a).dtype}
    params.update(scales=list(at["scales"]), zero_points=list(at["zero_points"]))
    params["rule"] = at.get("rule", "fixed")
    task = Task.make("qadd", target=low.target, **params)
    low.call_default(task, [*bufs, low.define(node.outputs[0], shape, layout)])


LOWERING = {
    "qconv2d": qconv2d,
    "quantize": quantize,
    "dequantize": dequantize,
    "qadd": qadd,
}
