"""Compiled operators against independent numpy oracles.

Every op is built with gcc from its default config on awkward shapes, run in a measurement
child, and checked against an oracle written here (not the template's own `reference`), so
a wrong template reference shows up too. Then random configs of each specialised template,
and a hand-written schedule lowered and emitted directly.

Builds are batched into one `builder.build([...])` per fixture: the file's cost is gcc.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest

from tunefarm.backends import get_backend, parse_target, registry
from tunefarm.backends.cpu import generic
from tunefarm.backends.cpu.c_emitter import emit_c
from tunefarm.codegen.lower import lower
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.conv import pad as pad_op
from tunefarm.measure import (
    ArgSpec,
    Config,
    KernelIO,
    KernelSource,
    LocalBuilder,
    LocalRunner,
    MeasureErrorNo,
    MeasureInput,
    MeasureSettings,
)
from tunefarm.schedule import steps as S
from tunefarm.schedule.schedule import Schedule
from tunefarm.schedule.space import SpaceError
from tunefarm.task import Task, TaskError

E = MeasureErrorNo
CHECK = MeasureSettings(min_repeat_ms=1, repeat=1, number=1, timeout_s=20.0)
Arrays = dict[str, np.ndarray]


# ---------------------------------------------------------------------------- oracles
def _pair(v) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else (int(v[0]), int(v[1]))


def _pads(v) -> tuple[int, int, int, int]:
    if isinstance(v, int):
        return (v, v, v, v)
    return (v[0], v[1], v[0], v[1]) if len(v) == 2 else tuple(v)


def conv_nchw(x, w, strides, pads, dilation, groups) -> np.ndarray:
    """Direct convolution in float64: one einsum per kernel tap and group."""
    (sh, sw), (dh, dw), (t, left, b, r) = strides, dilation, pads
    n, c, h, wd = x.shape
    o, ci, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (t, b), (left, r)))
    oh = (h + t + b - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + left + r - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        for ky in range(kh):
            for kx in range(kw):
                rows = slice(ky * dh, ky * dh + sh * (oh - 1) + 1, sh)
                cols = slice(kx * dw, kx * dw + sw * (ow - 1) + 1, sw)
                patch = xp[:, g * ci : (g + 1) * ci, rows, cols]
                wk = w[g * og : (g + 1) * og, :, ky, kx].astype(np.float64)
                out[:, g * og : (g + 1) * og] += np.einsum("nchw,oc->nohw", patch, wk)
    return out


def epilogue(x: np.ndarray, spec, inputs: Arrays, channel_axis: int = 1) -> np.ndarray:
    for item in spec:
        kind, *args = item.split(":")
        a = [float(v) for v in args]
        if kind == "bias":
            shape = [1] * x.ndim
            shape[channel_axis] = -1
            x = x + inputs["bias"].reshape(shape)
        elif kind == "residual":
            x = x + inputs["residual"]
        elif kind == "relu":
            x = np.maximum(x, 0.0)
        elif kind == "clip":
            x = np.minimum(np.maximum(x, a[0]), a[1])
        elif kind == "sigmoid":
            x = 1.0 / (1.0 + np.exp(-x))
        elif kind == "silu":
            x = x / (1.0 + np.exp(-x))
        elif kind == "hard_swish":
            x = x * np.clip(x + 3.0, 0.0, 6.0) / 6.0
        elif kind == "leaky_relu":
            x = np.where(x > 0, x, x * a[0])
        else:
            raise AssertionError(f"oracle has no epilogue {item!r}")
    return x


def _window_taps(size, k, s, p0, p1, d, ceil_mode) -> list[list[int]]:
    """Per output position, the input coordinates of its window (may lie in the padding).

    Output size as ONNX/PyTorch: with ceil_mode a last window must start inside the input
    or the leading padding."""
    span = d * (k - 1) + 1
    num = size + p0 + p1 - span
    out = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (out - 1) * s >= size + p0:
        out -= 1
    return [[o * s + t * d - p0 for t in range(k)] for o in range(out)]


def pool_nchw(x, kind, kernel, strides, pads, dilation, ceil_mode, count_include_pad):
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (dh, dw), (t, left, b, r) = kernel, strides, dilation, pads
    rows = _window_taps(h, kh, sh, t, b, dh, ceil_mode)
    cols = _window_taps(w, kw, sw, left, r, dw, ceil_mode)
    out = np.zeros((n, c, len(rows), len(cols)))
    for oy, ys in enumerate(rows):
        for ox, xs in enumerate(cols):
            vals = [x[:, :, y, v] for y in ys for v in xs if 0 <= y < h and 0 <= v < w]
            if kind == "max":
                out[:, :, oy, ox] = np.max(vals, axis=0)
                continue
            if count_include_pad:  # the explicitly padded input; ceil overhang never counts
                count = sum(-t <= y < h + b for y in ys) * sum(-left <= v < w + r for v in xs)
            else:
                count = len(vals)
            out[:, :, oy, ox] = np.sum(vals, axis=0, dtype=np.float64) / count
    return out


def _blocked(x: np.ndarray, src: str, dst: str) -> np.ndarray:
    """NCHW <-> NCHW{b}c only (what the tests use)."""
    if src == "NCHW":
        b = int(re.fullmatch(r"NCHW(\d+)c", dst).group(1))
        n, c, h, w = x.shape
        return x.reshape(n, c // b, b, h, w).transpose(0, 1, 3, 4, 2)
    assert dst == "NCHW" and re.fullmatch(r"NCHW\d+c", src)
    n, cc, h, w, b = x.shape
    return x.transpose(0, 1, 4, 2, 3).reshape(n, cc * b, h, w)


ELEMENTWISE: dict[str, Callable] = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "relu": lambda x, a: np.maximum(x, 0.0),
    "sigmoid": lambda x, a: 1.0 / (1.0 + np.exp(-x)),
    "silu": lambda x, a: x / (1.0 + np.exp(-x)),
    "hard_swish": lambda x, a: x * np.clip(x + 3.0, 0.0, 6.0) / 6.0,
    "hard_sigmoid": lambda x, a: np.clip(a.get("alpha", 0.2) * x + a.get("beta", 0.5), 0, 1),
    "leaky_relu": lambda x, a: np.where(x >= 0, x, x * a.get("alpha", 0.01)),
    "clip": lambda x, a: np.clip(x, a.get("lo", 0.0), a.get("hi", 6.0)),
    "cast": lambda x, a: x.astype(a.get("dtype", "float32")),
}


def oracle(task: Task, xs: Arrays) -> np.ndarray:
    """The expected logical output of `task` on logical inputs `xs`, written from scratch."""
    a = task.args
    op = task.op
    if op in ("conv2d", "conv2d_winograd"):  # the same convolution, another algorithm
        p = (_pair(a.get("strides", 1)), _pads(a.get("padding", 0)), _pair(a.get("dilation", 1)))
        out = conv_nchw(xs["data"], xs["weight"], *p, a.get("groups", 1))
        return epilogue(out, a.get("epilogue", ()), xs)
    if op == "dense":
        out = xs["data"].astype(np.float64) @ xs["weight"].astype(np.float64).T
        return epilogue(out, a.get("epilogue", ()), xs)
    if op == "pool2d":
        return pool_nchw(
            xs["data"],
            a.get("kind", "max"),
            _pair(a.get("kernel", 2)),
            _pair(a.get("strides", 1)),
            _pads(a.get("padding", 0)),
            _pair(a.get("dilation", 1)),
            a.get("ceil_mode", False),
            a.get("count_include_pad", False),
        )
    if op == "global_pool2d":
        fn = np.max if a.get("kind", "max") == "max" else np.mean
        return fn(xs["data"].astype(np.float64), axis=(2, 3), keepdims=True)
    if op == "softmax":
        x = xs["x"].astype(np.float64)
        e = np.exp(x - x.max(axis=a["axis"], keepdims=True))
        return e / e.sum(axis=a["axis"], keepdims=True)
    if op == "elementwise":
        args = [v.astype(np.float64) for v in xs.values()]
        if a["fn"] == "bias_add":
            shape = [1] * args[0].ndim
            shape[a.get("axis", 1)] = -1
            return args[0] + args[1].reshape(shape)
        if a["fn"] == "affine":  # x * scale + shift, then relu if asked; xs joined on axis 1
            y = np.concatenate(args[:-2], axis=1) * args[-2] + args[-1]
            return np.maximum(y, 0.0) if a.get("relu") else y
        if len(args) == 2:
            return ELEMENTWISE[a["fn"]](*args)
        return ELEMENTWISE[a["fn"]](xs["x0"] if a["fn"] == "cast" else args[0], a)
    if op == "matmul":
        return xs["a"].astype(np.float64) @ xs["b"]
    if op == "batch_matmul":
        b = xs["b"].astype(np.float64)
        return xs["a"] @ (b.transpose(0, 2, 1) if a.get("transpose_b") else b)
    if op == "conv2d_nhwc":
        p = (_pair(a.get("strides", 1)), _pads(a.get("padding", 0)), _pair(a.get("dilation", 1)))
        x, w = xs["data"].transpose(0, 3, 1, 2), xs["weight"].transpose(3, 2, 0, 1)
        return conv_nchw(x, w, *p, a.get("groups", 1)).transpose(0, 2, 3, 1)
    if op == "layout_transform":
        return _blocked(xs["x"], a["src"], a["dst"])
    return graph_op_oracle(op, a, xs)


def lrn_nchw(x: np.ndarray, size: int, alpha: float, beta: float, bias: float) -> np.ndarray:
    """ONNX LRN one channel at a time: window [c - (size-1)//2, c + size//2] within C."""
    x64, channels = x.astype(np.float64), x.shape[1]
    out = np.empty(x.shape)
    for c in range(channels):
        window = x64[:, max(0, c - (size - 1) // 2) : min(channels, c + size // 2 + 1)]
        out[:, c] = x64[:, c] / (bias + alpha / size * (window**2).sum(axis=1)) ** beta
    return out


def graph_op_oracle(op: str, a: dict, xs: Arrays) -> np.ndarray:
    """Oracles of the graph ops between anchors (concat, slice, pad, ...)."""
    x = xs.get("x")
    if op == "concat":
        return np.concatenate(list(xs.values()), axis=a["axis"])
    if op == "slice":
        return np.moveaxis(np.moveaxis(x, a["axis"], 0)[a["begin"] : a["end"]], 0, a["axis"])
    if op == "pad":
        n, p = x.ndim, a["pads"]
        return np.pad(x, list(zip(p[:n], p[n:], strict=True)), constant_values=a.get("value", 0.0))
    if op == "transpose":
        return x.transpose(a.get("perm"))
    if op == "reduce_mean":
        return x.astype(np.float64).mean(axis=tuple(a["axes"]), keepdims=a["keepdims"])
    if op == "lrn":
        return lrn_nchw(x, a["size"], a["alpha"], a["beta"], a["bias"])
    if op == "copy":
        return x
    raise AssertionError(f"no oracle for {op}")


def oracle_io(inp: MeasureInput, seed: int) -> KernelIO:
    """Runner io_factory: the template's packing, but expected values from `oracle`."""
    task = inp.task
    kdef = registry.instantiate(task, inp.config)
    logical = registry.random_inputs(task, seed)
    expected = np.asarray(oracle(task, logical)).astype(kdef.outputs[0].dtype)
    args = [pack(x) for pack, x in zip(kdef.packers, logical.values(), strict=True)]
    packed = kdef.output_packer(expected)
    args.append(np.zeros_like(packed))
    return KernelIO(args, {len(args) - 1: packed})


def run_all(builder: LocalBuilder, inputs: list[MeasureInput], io_factory=oracle_io):
    with LocalRunner(CHECK, io_factory) as runner:
        return runner.run(inputs, builder.build(inputs))


@pytest.fixture(scope="module")
def builder(tmp_path_factory: pytest.TempPathFactory):
    cache = tmp_path_factory.mktemp("build-cache")
    with registry.local_builder(n_parallel=2, timeout_s=120, cache_dir=cache) as b:
        yield b


# ---------------------------------------------------------------- default configs
def conv(data, weight, **kw) -> Task:
    return Task.make("conv2d", data=data, weight=weight, **kw)


def pool(data, kind, **kw) -> Task:
    return Task.make("pool2d", data=data, kind=kind, **kw)


def ew(fn, *shapes, **kw) -> Task:
    return Task.make("elementwise", fn=fn, shapes=list(shapes), **kw)


def winograd(data, weight, **kw) -> Task:
    return Task.make("conv2d_winograd", data=data, weight=weight, **kw)


DEFAULT_CASES: dict[str, Task] = {
    # output sizes that are no multiple of the tile (4), a batch, asymmetric and no padding
    "winograd_c8_o16_pad1": winograd(
        (1, 8, 9, 10), (16, 8, 3, 3), padding=1, epilogue=("bias", "relu")
    ),
    "winograd_batch2_residual_asym_pad": winograd(
        (2, 12, 7, 11), (24, 12, 3, 3), padding=(1, 0, 2, 1), epilogue=("bias", "residual", "relu")
    ),
    "winograd_no_pad": winograd((1, 4, 6, 6), (8, 4, 3, 3)),
    # stride 2: odd and even sizes, asymmetric padding, a batch
    "winograd_s2_pad1": winograd(
        (1, 8, 12, 11), (16, 8, 3, 3), strides=2, padding=1, epilogue=("bias", "relu")
    ),
    "winograd_s2_batch2_asym_pad": winograd(
        (2, 12, 9, 10), (24, 12, 3, 3), strides=2, padding=(1, 0, 2, 1), epilogue=("bias",)
    ),
    "conv_c3_o12_pad1": conv((1, 3, 11, 13), (12, 3, 3, 3), padding=1),
    "conv_c5_o24_s2_asym_pad": conv((1, 5, 15, 14), (24, 5, 3, 3), strides=2, padding=(1, 0, 2, 1)),
    "conv_c12_o5_dilation2": conv((1, 12, 13, 11), (5, 12, 3, 3), padding=2, dilation=2),
    "conv_rect_kernel_s21": conv((1, 6, 9, 10), (12, 6, 3, 5), strides=(2, 1)),
    "conv_batch2_bias_relu": conv(
        (2, 12, 9, 9), (24, 12, 3, 3), padding=1, epilogue=("bias", "relu")
    ),
    "conv_1x1_bias_residual_relu": conv(
        (1, 24, 7, 7), (12, 24, 1, 1), epilogue=("bias", "residual", "relu")
    ),
    "conv_clip": conv((1, 5, 7, 7), (24, 5, 3, 3), padding=1, epilogue=("clip:0:6",)),
    "conv_hard_swish": conv((1, 12, 6, 6), (12, 12, 3, 3), epilogue=("hard_swish",)),
    "conv_sigmoid": conv((1, 3, 8, 7), (5, 3, 3, 3), padding=1, epilogue=("sigmoid",)),
    "conv_bias_silu": conv((1, 12, 7, 6), (24, 12, 1, 1), epilogue=("bias", "silu")),
    "conv_leaky_relu": conv(
        (2, 5, 7, 9), (12, 5, 3, 3), strides=2, epilogue=("bias", "leaky_relu:0.1")
    ),
    "group_conv_g2": conv((1, 12, 9, 9), (10, 6, 3, 3), padding=1, groups=2),
    "group_conv_g2_s2_batch2": conv(
        (2, 6, 10, 9), (4, 3, 3, 3), strides=2, padding=(0, 1, 1, 0), groups=2
    ),
    "depthwise_c24_s2": conv((1, 24, 11, 11), (24, 1, 3, 3), strides=2, padding=1, groups=24),
    "depthwise_c5_batch2_bias_relu": conv(
        (2, 5, 9, 8), (5, 1, 3, 3), padding=1, groups=5, epilogue=("bias", "relu")
    ),
    "depthwise_c12_dilation2": conv(
        (1, 12, 11, 10), (12, 1, 3, 3), padding=(2, 1), dilation=2, groups=12
    ),
    "dense_o20_batch3": Task.make("dense", data=(3, 37), weight=(20, 37)),
    "dense_o7_bias_relu": Task.make(
        "dense", data=(2, 24), weight=(7, 24), epilogue=("bias", "relu")
    ),
    "dense_o40_batch1": Task.make("dense", data=(1, 64), weight=(40, 64)),
    "max_pool_s2_pad1": pool((1, 12, 13, 13), "max", kernel=3, strides=2, padding=1),
    "max_pool_ceil": pool((2, 5, 10, 11), "max", kernel=3, strides=2, ceil_mode=True),
    "max_pool_dilation2": pool((1, 8, 11, 9), "max", kernel=3, padding=1, dilation=2),
    "avg_pool_pad_count_include": pool(
        (1, 5, 9, 9), "avg", kernel=3, strides=2, padding=1, count_include_pad=True
    ),
    "avg_pool_pad_exclude": pool((1, 24, 8, 7), "avg", kernel=3, padding=(1, 0, 1, 1)),
    "avg_pool_ceil_include": pool(
        (2, 3, 10, 10),
        "avg",
        kernel=3,
        strides=2,
        padding=1,
        ceil_mode=True,
        count_include_pad=True,
    ),
    "avg_pool_ceil_exclude": pool((1, 12, 11, 8), "avg", kernel=(2, 3), strides=2, ceil_mode=True),
    "global_max_pool": Task.make("global_pool2d", data=(2, 5, 7, 9), kind="max"),
    "global_avg_pool": Task.make("global_pool2d", data=(1, 24, 3, 5), kind="avg"),
    "softmax_last_axis": Task.make("softmax", shape=(3, 37), axis=-1),
    "softmax_axis1": Task.make("softmax", shape=(2, 5, 7), axis=1),
    "softmax_axis0": Task.make("softmax", shape=(6, 3), axis=0),
    # rows longer than a vector, not whole vectors: exp in its own vector stage, a tail
    "softmax_window_rows": Task.make("softmax", shape=(2, 3, 49, 49), axis=-1),
    "softmax_axis1_long_w": Task.make("softmax", shape=(1, 5, 3, 37), axis=1),
    # rows of whole vectors (BERT's 128): max and sum as vector partials, exp a vector stage
    "softmax_whole_vector_rows": Task.make("softmax", shape=(2, 3, 64), axis=-1),
    **{
        f"ew_{fn}": ew(fn, (2, 3, 5, 7), (1, 3, 1, 7))
        for fn in ("add", "subtract", "multiply", "maximum", "minimum")
    },
    "ew_divide_rank_broadcast": ew("divide", (4, 6), (6,)),
    "ew_add_both_broadcast": ew("add", (3, 1, 5), (1, 4, 1)),
    "ew_bias_add": ew("bias_add", (2, 5, 3, 4), (5,), axis=1),
    "ew_relu": ew("relu", (3, 17)),
    # a blocked activation [N, C/b, H, W, b] with per-channel [1, C/b, 1, 1, b] constants
    "ew_affine_relu": ew("affine", (1, 3, 5, 7, 8), (1, 3, 1, 1, 8), (1, 3, 1, 1, 8), relu=True),
    "ew_affine": ew("affine", (2, 6, 5, 3), (1, 6, 1, 1), (1, 6, 1, 1)),
    "ew_affine_of_a_concat": ew(
        "affine",
        (1, 2, 3, 5, 8),
        (1, 1, 3, 5, 8),
        (1, 3, 3, 5, 8),
        (1, 6, 1, 1, 8),
        (1, 6, 1, 1, 8),
        relu=True,
    ),  # fmt: skip
    "ew_sigmoid": ew("sigmoid", (2, 3, 11)),
    "ew_silu": ew("silu", (2, 3, 37)),
    "ew_hard_swish": ew("hard_swish", (5, 9)),
    "ew_hard_sigmoid": ew("hard_sigmoid", (4, 7), alpha=0.3, beta=0.4),
    "ew_leaky_relu": ew("leaky_relu", (3, 19), alpha=0.1),
    "ew_clip": ew("clip", (6, 5), lo=-0.25, hi=0.5),
    "ew_cast_float64": ew("cast", (3, 13), dtype="float64"),
    "matmul": Task.make("matmul", a=(13, 17), b=(17, 19)),
    "batch_matmul": Task.make("batch_matmul", a=(2, 7, 9), b=(2, 9, 5)),
    "batch_matmul_transpose_b": Task.make(
        "batch_matmul", a=(3, 5, 8), b=(3, 6, 8), transpose_b=True
    ),
    "batch_matmul_broadcast_batch": Task.make("batch_matmul", a=(1, 4, 6), b=(3, 6, 5)),
    "conv2d_nhwc": Task.make(
        "conv2d_nhwc", data=(1, 9, 8, 5), weight=(3, 3, 5, 7), strides=2, padding=1
    ),
    "layout_nchw_to_nchw8c": Task.make(
        "layout_transform", shape=(2, 16, 5, 3), src="NCHW", dst="NCHW8c"
    ),
    "layout_nchw8c_to_nchw": Task.make(
        "layout_transform", shape=(1, 3, 4, 5, 8), src="NCHW8c", dst="NCHW"
    ),
    "concat_blocked_3in": Task.make(
        "concat", shapes=[(1, 4, 5, 5, 8), (1, 2, 5, 5, 8), (1, 3, 5, 5, 8)], axis=1
    ),
    "slice_last_axis": Task.make("slice", shape=(3, 13), axis=-1, begin=2, end=9),
    "pad_asym_value": Task.make(
        "pad", shape=(1, 3, 5, 7), pads=[0, 0, 1, 2, 0, 0, 2, 1], value=0.5
    ),
    "transpose_nchw_to_nhwc": Task.make("transpose", shape=(2, 3, 5, 7), perm=[0, 2, 3, 1]),
    "reduce_mean_hw": Task.make("reduce_mean", shape=(2, 5, 7, 3), axes=[1, 2], keepdims=True),
    "lrn_size5": Task.make("lrn", shape=(1, 7, 5, 6), size=5, alpha=0.3, beta=0.75, bias=1.0),
    "copy": Task.make("copy", shape=(3, 13)),
}


@pytest.fixture(scope="module")
def default_results(builder):
    """name -> MeasureResult (or the exception making the default config) for every case."""
    out: dict[str, object] = {}
    inputs, names = [], []
    for name, task in DEFAULT_CASES.items():
        try:
            inputs.append(MeasureInput(task, registry.default_config(task)))
            names.append(name)
        except Exception as exc:  # reported by that case's test, not the whole module
            out[name] = exc
    out.update(zip(names, run_all(builder, inputs), strict=True))
    return out


def test_avg_pool_with_dilation_is_refused() -> None:
    task = Task.make("pool2d", data=(1, 8, 11, 9), kind="avg", kernel=3, padding=1, dilation=2)
    with pytest.raises(TaskError, match="avg pooling with dilation"):
        registry.template(task).validate(task)


@pytest.mark.parametrize("name", list(DEFAULT_CASES))
def test_default_config_matches_numpy(default_results, name: str) -> None:
    res = default_results[name]
    if isinstance(res, Exception):
        raise res
    assert res.error_no == E.NO_ERROR, f"{DEFAULT_CASES[name]}: {res.error_msg}"


@pytest.mark.parametrize("name", list(DEFAULT_CASES))
def test_template_reference_matches_oracle(name: str) -> None:
    """The reference the default runner checks against agrees with the oracle here."""
    task = DEFAULT_CASES[name]
    xs = registry.random_inputs(task, seed=1)
    got = registry.template(task).reference(task, dict(xs))
    want = oracle(task, xs)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_every_op_and_elementwise_fn_is_covered() -> None:
    ops = {registry.template(t).op for t in DEFAULT_CASES.values()}
    # the int8 ops are checked bit for bit against their own numpy oracles in
    # test_quant_ops.py and test_qconv2d.py
    int8 = {"quantize", "dequantize", "requantize", "qadd", "conv2d_int8", "dense_int8"}
    # the transformer ops and functions have their cases in test_transformer_kernels.py
    transformer = {"gather", "where", "broadcast_to", "layer_norm"}
    # attention has its cases (shapes, masks, layouts, ISAs) in test_attention.py, the
    # channel shuffle (with padded blocked inputs) in test_padded_channels.py
    transformer |= {"attention", "channel_shuffle"}
    assert ops == set(registry.ops()) - int8 - {"depthwise_conv2d_int8"} - transformer
    fns = {t.args["fn"] for t in DEFAULT_CASES.values() if t.op == "elementwise"}
    transformer_fns = {"erf", "tanh", "sqrt", "square", "gelu", "equal"}
    assert fns == (generic.UNARY | generic.BINARY | generic.TERNARY) - transformer_fns


def test_dispatch_of_grouped_conv() -> None:
    grouped, dw = DEFAULT_CASES["group_conv_g2"], DEFAULT_CASES["depthwise_c24_s2"]
    assert registry.template(grouped).op == "group_conv2d"
    assert registry.template(dw).op == "depthwise_conv2d"
    assert registry.template(DEFAULT_CASES["conv_c3_o12_pad1"]).op == "conv2d"


def test_group_conv_epilogue_is_applied_or_refused() -> None:
    task = conv((1, 4, 5, 5), (4, 2, 3, 3), groups=2, epilogue=("bias", "relu"))
    try:
        names = [n for n, _ in registry.template(task).logical_inputs(task)]
    except TaskError:
        return  # refusing the epilogue is fine too
    assert "bias" in names, f"epilogue bias ignored: kernel inputs are {names}"


# ---------------------------------------------------------------- random configs
RANDOM_TASKS = {
    "conv2d": conv((1, 8, 6, 6), (16, 8, 3, 3), padding=1, epilogue=("bias", "relu")),
    "conv2d_awkward": conv(
        (1, 12, 9, 11),
        (24, 12, 3, 3),
        strides=2,
        padding=(1, 0, 2, 1),
        epilogue=("residual", "clip:0:6"),
    ),
    "depthwise_conv2d": conv((1, 16, 7, 7), (16, 1, 3, 3), strides=2, padding=1, groups=16),
    "depthwise_dilated": conv(
        (1, 12, 9, 10),
        (12, 1, 3, 3),
        padding=2,
        dilation=2,
        groups=12,
        epilogue=("bias", "hard_swish"),
    ),
    "depthwise_bias_silu": conv(
        (1, 32, 9, 9), (32, 1, 3, 3), padding=1, groups=32, epilogue=("bias", "silu")
    ),
    "conv2d_winograd": winograd(
        (1, 12, 10, 9), (16, 12, 3, 3), padding=1, epilogue=("bias", "residual", "relu")
    ),
    "conv2d_winograd_s2": winograd(
        (1, 12, 13, 10), (16, 12, 3, 3), strides=2, padding=1, epilogue=("bias", "residual", "relu")
    ),
    "dense": Task.make("dense", data=(2, 24), weight=(16, 24), epilogue=("bias",)),
    "pool2d_max": pool((1, 16, 12, 12), "max", kernel=3, strides=2, padding=1),
    "pool2d_avg": pool((1, 12, 11, 10), "avg", kernel=3, strides=2, padding=1, ceil_mode=True),
    "global_pool2d": Task.make("global_pool2d", data=(1, 48, 5, 5), kind="avg"),
}
N_RANDOM = 10


def _random_inputs() -> dict[str, list[MeasureInput]]:
    """N_RANDOM sampled configs per task, plus one the template must reject (a knob value
    outside the space), which has to come back as an INSTANTIATION_ERROR result."""
    rng = np.random.default_rng(0)
    out = {}
    for name, task in RANDOM_TASKS.items():
        space = registry.config_space(task)
        idx = space.sample(rng, N_RANDOM)
        out[name] = [MeasureInput(task, Config.make(space.get(i), index=i)) for i in idx]
        bad = space.get(idx[0])
        bad[next(iter(bad))] = "not-in-the-space"
        out[name].append(MeasureInput(task, Config.make(bad)))
    return out


@pytest.fixture(scope="module")
def random_results(builder):
    per_task = _random_inputs()
    flat = [inp for inps in per_task.values() for inp in inps]
    results = iter(run_all(builder, flat))
    return {name: [(inp, next(results)) for inp in inps] for name, inps in per_task.items()}


@pytest.mark.parametrize("name", list(RANDOM_TASKS))
def test_random_configs_are_correct_or_rejected(random_results, name: str) -> None:
    pairs = random_results[name]
    assert len(pairs) == min(N_RANDOM, registry.config_space(RANDOM_TASKS[name]).size) + 1
    ran = rejected_count = 0
    for inp, res in pairs:
        where = f"{name} config {inp.config.as_dict()}"
        try:
            registry.instantiate(inp.task, inp.config)
            rejected = None
        except (TaskError, SpaceError) as exc:
            rejected = exc
        if rejected is not None:
            assert res.error_no == E.INSTANTIATION_ERROR, where
            assert type(rejected).__name__ in res.error_msg and str(rejected), where
            rejected_count += 1
            continue
        assert res.error_no == E.NO_ERROR, f"{where}: {res.error_no.name}: {res.error_msg}"
        ran += 1
    assert rejected_count >= 1  # at least the deliberately bad config
    assert ran >= len(pairs) // 2, f"{name}: only {ran} of {len(pairs)} sampled configs run"


# ---------------------------------------------------------------- a hand-written schedule
def handwritten_matmul(m: int, n: int, k: int):
    """C = A @ B tiled by hand: every primitive a template uses, plus non-dividing splits."""
    a = te.placeholder((m, k), name="A")
    b = te.placeholder((k, n), name="B")
    r = te.reduce_axis(k, "k")
    c = te.compute((m, n), lambda i, j: te.sum(a[i, r] * b[r, j], axis=r), name="C")
    steps = [
        S.CacheWrite("C"),
        S.CacheRead("B", "local", ("C.local",)),
        S.Split("C", "i", (8,)),
        S.Split("C", "j", (16,)),
        S.Reorder("C", ("i.0", "j.0", "i.1", "j.1")),
        S.Fuse("C", ("i.0", "j.0")),
        S.Parallel("C", "i.0+j.0"),
        S.Unroll("C", "i.1"),
        S.Vectorize("C", "j.1"),
        S.ComputeAt("C.local", "C", "i.0+j.0"),
        S.Split("C.local", "k", (4,)),
        S.Reorder("C.local", ("k.0", "i", "k.1", "j")),
        S.Unroll("C.local", "k.1"),
        S.Vectorize("C.local", "j"),
        S.ComputeAt("B.local", "C.local", "k.0"),
        S.Vectorize("B.local", "ax1"),
    ]
    return Schedule([c], [a, b]).apply_all(steps)


def stencil_1d(n: int, k: int, stride: int, pad: int) -> Schedule:
    """Y[b, o] = sum_r padded(X)[b, o*stride + r] * W[r], the padded copy computed per output
    tile (overlapping, strided windows: bound inference must get the region right)."""
    x, w = te.placeholder((2, n), name="X"), te.placeholder((k,), name="W")
    padded = pad_op(x, (0, pad), (0, pad), name="pad", axis_names=("b", "i"))
    r = te.reduce_axis(k, "r")
    ow = (n + 2 * pad - k) // stride + 1
    y = te.compute((2, ow), lambda b, o: te.sum(padded[b, o * stride + r] * w[r], axis=r), name="Y")
    steps = [
        S.CacheWrite("Y"),
        S.Split("Y", "o", (3,)),
        S.Parallel("Y", "b"),
        S.ComputeAt("Y.local", "Y", "o.0"),
        S.ComputeAt("pad", "Y.local", "b"),
        S.Split("Y.local", "r", (2,)),
        S.Reorder("Y.local", ("b", "r.0", "o", "r.1")),
        S.Unroll("Y.local", "r.1"),
    ]
    return Schedule([y], [x, w]).apply_all(steps)


def generate_handwritten(inp: MeasureInput) -> KernelSource:
    """Module-level (picklable) source generator for the build workers."""
    p = inp.task.args
    if inp.task.op == "handwritten_matmul":
        sch = handwritten_matmul(p["m"], p["n"], p["k"])
    else:
        sch = stencil_1d(p["n"], p["k"], p["stride"], p["pad"])
    target = parse_target(inp.task.target)
    code = emit_c(lower(sch), target)
    specs = [ArgSpec(t.name, t.shape) for t in sch.inputs]
    specs += [ArgSpec(t.name, t.shape, is_output=True) for t in sch.outputs]
    tc = get_backend("cpu").toolchain(target)
    return KernelSource(code, "tf_entry", tuple(specs), inp.task.workload_key, 0.0, tc)


def handwritten_io(inp: MeasureInput, seed: int) -> KernelIO:
    p = inp.task.args
    rng = np.random.default_rng(seed)
    if inp.task.op == "handwritten_matmul":
        a = rng.uniform(-1, 1, (p["m"], p["k"])).astype(np.float32)
        b = rng.uniform(-1, 1, (p["k"], p["n"])).astype(np.float32)
        expected = a.astype(np.float64) @ b
    else:
        a = rng.uniform(-1, 1, (2, p["n"])).astype(np.float32)
        b = rng.uniform(-1, 1, (p["k"],)).astype(np.float32)
        xp = np.pad(a.astype(np.float64), ((0, 0), (p["pad"], p["pad"])))
        ow = (xp.shape[1] - p["k"]) // p["stride"] + 1
        expected = sum(
            xp[:, r : r + p["stride"] * (ow - 1) + 1 : p["stride"]] * b[r] for r in range(p["k"])
        )
    expected = expected.astype(np.float32)
    return KernelIO([a, b, np.zeros_like(expected)], {2: expected})


def test_handwritten_schedule_lowers_with_guards() -> None:
    code = emit_c(lower(handwritten_matmul(37, 45, 29)), parse_target("cpu"))
    assert "/* serial: work" in code  # its parallel loop is too small for a region
    big = emit_c(lower(handwritten_matmul(256, 256, 64)), parse_target("cpu"))
    assert "#pragma omp parallel for" in big
    assert "float C_local[128]" in code and "float B_local[64]" in code  # 8x16 and 4x16 tiles
    assert "< 45)" in code and "< 37)" in code and "< 29)" in code  # guards of the splits
    divisible = emit_c(lower(handwritten_matmul(32, 48, 32)), parse_target("cpu -isa=avx2"))
    assert "tf_v16fu" in divisible and "if (" not in divisible  # vector types, no guards


HANDWRITTEN = [
    Task.make("handwritten_matmul", m=37, n=45, k=29),  # no split divides
    Task.make("handwritten_matmul", m=32, n=48, k=32),  # every split divides: vector code
    Task.make("stencil_1d", n=13, k=3, stride=1, pad=1),
    Task.make("stencil_1d", n=14, k=5, stride=2, pad=2),
    Task.make("stencil_1d", n=9, k=4, stride=3, pad=0),
]


def test_handwritten_schedules_run_correctly(tmp_path) -> None:
    inputs = [MeasureInput(t, Config.make({})) for t in HANDWRITTEN]
    with LocalBuilder(
        n_parallel=2, timeout_s=60, cache_dir=tmp_path, generate=generate_handwritten
    ) as b:
        results = run_all(b, inputs, io_factory=handwritten_io)
    bad = [
        (str(t), r.error_no.name, r.error_msg)
        for t, r in zip(HANDWRITTEN, results, strict=True)
        if r.error_no != E.NO_ERROR
    ]
    assert not bad
