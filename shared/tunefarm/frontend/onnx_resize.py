"""Import of ONNX Resize as one interpolation matrix per resized axis.

Why matrices: with constant scales or sizes, every Resize mode (nearest with each rounding
rule, linear, cubic, antialiased) and every coordinate transformation is separable, and
along one axis it is a fixed linear map out[j] = sum_i M[j, i] x[i]. M is read off ONNX's
own reference implementation by resizing an identity matrix, so each mode's and
coordinate rule's fine print (half_pixel vs pytorch_half_pixel, cubic_coeff_a,
exclude_outside, rounding) is ONNX's, not a copy of it; the graph then applies M with a
`dense` (exact for nearest: one 1.0 per row). Upsampling decoders (DeepLab, FCN) resize
small maps, so the matrices are small.
"""

from __future__ import annotations

import numpy as np
from onnx import helper
from onnx.reference import ReferenceEvaluator

from tunefarm.frontend.onnx_index import along_last

ATTRS = (
    "mode",
    "coordinate_transformation_mode",
    "nearest_mode",
    "cubic_coeff_a",
    "exclude_outside",
    "antialias",
)


def _targets(cx, shape) -> tuple[list[float | None], list[int]]:
    """Per axis: the scale ONNX computes with (None when sizes are given) and the size."""
    rank = len(shape)
    at = 2 if cx.opset >= 11 else 1
    scales = cx.maybe_const(at) if cx.has(at) else None
    sizes = cx.maybe_const(3) if cx.opset >= 11 and cx.has(3) else None
    axes = [int(a) % rank for a in cx.attr("axes", range(rank))]
    for i in (1, 2, 3):
        if cx.has(i) and cx.maybe_const(i) is None:
            raise cx.fail(f"input {i} {cx.input(i)!r} must be a constant (computed at run time)")
    if cx.attr("keep_aspect_ratio_policy", "stretch") != "stretch" and sizes is not None:
        raise cx.fail("keep_aspect_ratio_policy other than 'stretch' is not supported")
    full_scale: list[float | None] = [1.0] * rank
    full_size = list(shape)
    if sizes is not None and sizes.size:
        for a, n in zip(axes, sizes.reshape(-1), strict=True):
            full_scale[a], full_size[a] = None, int(n)
    elif scales is not None and scales.size:
        for a, s in zip(axes, scales.reshape(-1), strict=True):
            full_scale[a] = float(s)
            full_size[a] = int(np.floor(shape[a] * np.float32(s)))
    else:
        raise cx.fail("neither scales nor sizes is given")
    return full_scale, full_size


def _matrix(cx, n_in: int, n_out: int, scale: float | None, roi) -> np.ndarray:
    """M [n_out, n_in] of the 1-D resize: ONNX's reference applied to an identity."""
    attrs = {k: cx.attrs[k] for k in ATTRS if k in cx.attrs}
    opset = cx.opset
    if opset < 11:  # Resize-10 is Resize-11 with asymmetric coordinates and floor rounding
        opset, attrs = 11, {**attrs, "coordinate_transformation_mode": "asymmetric"}
        attrs["nearest_mode"] = "floor"
    ins = ["x", "roi", "scales", "sizes"]
    feeds = {"x": np.eye(n_in, dtype=np.float32)}
    feeds["roi"] = np.array([0, roi[0], 1, roi[1]], np.float32)
    if scale is None:
        feeds["scales"] = np.zeros(0, np.float32)
        feeds["sizes"] = np.array([n_in, n_out], np.int64)
    else:
        feeds["scales"] = np.array([1.0, scale], np.float32)
        ins = ins[:3]
    node = helper.make_node("Resize", ins, ["y"], **attrs, extrapolation_value=0.0)
    fn = helper.make_function("tunefarm.resize", "probe", ins, ["y"], [node],
                              [helper.make_opsetid("", opset)])  # fmt: skip
    try:
        y = ReferenceEvaluator(fn).run(None, feeds, {})[0]
    except Exception as err:
        raise cx.fail(f"cannot evaluate the resize: {type(err).__name__}: {err}") from None
    if y.shape != (n_in, n_out):
        raise cx.fail(f"resize of an axis of {n_in} gives {y.shape[1]} points, not {n_out}")
    return np.ascontiguousarray(y.T)


def resize(cx) -> None:
    """Resize with constant scales/sizes, applied one axis at a time."""
    shape = cx.shape(0)
    rank = len(shape)
    scales, sizes = _targets(cx, shape)
    ext = float(cx.attr("extrapolation_value", 0.0))
    ctm = cx.attr("coordinate_transformation_mode", "half_pixel")
    if ctm == "tf_crop_and_resize" and ext != 0.0:
        raise cx.fail("tf_crop_and_resize with a non-zero extrapolation_value is not supported")
    roi = cx.maybe_const(1) if cx.opset >= 11 and cx.has(1) else None
    roi = None if roi is None or roi.size == 0 else roi.reshape(-1).astype(np.float32)
    x = cx.value(0)
    # an axis keeping its size and scale 1 is the identity (except when cropped to a roi)
    axes = [
        a
        for a in range(rank)
        if sizes[a] != shape[a] or scales[a] not in (None, 1.0) or ctm == "tf_crop_and_resize"
    ]
    if not axes:
        cx.alias(cx.outputs[0], cx.input(0))
        return
    cur = list(shape)
    for k, a in enumerate(axes):
        if roi is not None and roi.size == 2 * rank:
            span = (float(roi[a]), float(roi[a + rank]))
        else:
            span = (0.0, 1.0)
        m = _matrix(cx, shape[a], sizes[a], scales[a], span)
        out = cx.outputs[0] if k == len(axes) - 1 else cx.imp.fresh(f"{cx.name}/axis{a}")
        along_last(cx, x, tuple(cur), a, m, out)
        cur[a] = sizes[a]
        x = out


HANDLERS = {"Resize": resize}
