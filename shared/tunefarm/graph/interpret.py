"""A plain numpy interpreter of the graph IR: the correctness oracle for graph passes.

Why: every pass (import, fusion, layout) must keep what the network computes. Running the
graph before and after a pass on the same inputs, with obvious numpy code built on the
operator oracle in `tunefarm.ir.reference`, checks that without compiling anything. Each
node's results are also checked against the shapes and dtypes in the graph's value table,
so a pass that leaves a stale table is caught here too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from tunefarm.graph import packed_ops, quant_ops
from tunefarm.graph.ir import OPS, Graph, GraphError, Node
from tunefarm.ir import layouts
from tunefarm.ir import reference as R
from tunefarm.ir.ops.epilogue import epilogue_inputs, reference_epilogue
from tunefarm.task import TaskError

__all__ = ["run_graph", "run_graph_all", "run_node"]

Kernel = Callable[[Node, list[np.ndarray]], list[np.ndarray]]


def _epilogue(node: Node, out: np.ndarray, extra: list[np.ndarray]) -> np.ndarray:
    spec = node.attrs.get("epilogue", [])
    if not spec:
        return out
    names = [k for k, _ in epilogue_inputs(spec, out.shape[1], out.shape)]
    return reference_epilogue(out, spec, dict(zip(names, extra, strict=False)), channel_axis=1)


def _conv2d(node: Node, a: list[np.ndarray]) -> list[np.ndarray]:
    at = node.attrs
    out = R.conv2d_nchw(
        a[0],
        a[1],
        at.get("strides", [1, 1]),
        at.get("padding", [0, 0, 0, 0]),
        at.get("dilation", [1, 1]),
        at.get("groups", 1),
    )
    return [_epilogue(node, out, a[2:])]


def _dense(node: Node, a: list[np.ndarray]) -> list[np.ndarray]:
    return [_epilogue(node, R.dense(a[0], a[1]), a[2:])]


def _matmul(node: Node, a: list[np.ndarray]) -> list[np.ndarray]:
    dtype = np.result_type(a[0], a[1])
    return [np.matmul(a[0].astype(np.float64), a[1].astype(np.float64)).astype(dtype)]


def _batch_norm(node: Node, a: list[np.ndarray]) -> list[np.ndarray]:
    x, scale, bias, mean, var = (v.astype(np.float64) for v in a)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    inv = scale / np.sqrt(var + float(node.attrs["epsilon"]))
    out = (x - mean.reshape(shape)) * inv.reshape(shape) + bias.reshape(shape)
    return [out.astype(a[0].dtype)]


def _lrn(node: Node, a: list[np.ndarray]) -> list[np.ndarray]:
    """ONNX LRN: x / (bias + alpha / size * sum of squares over the channel window)^beta,
    the window running from c - floor((size-1)/2) to c + ceil((size-1)/2)."""
    x = a[0].astype(np.float64)
    size = int(node.attrs["size"])
    alpha, beta, bias = (float(node.attrs[k]) for k in ("alpha", "beta", "bias"))
    lo, hi = (size - 1) // 2, size - 1 - (size - 1) // 2
    sq = np.pad(x * x, [(0, 0), (lo, hi)] + [(0, 0)] * (x.ndim - 2))
    csum = np.concatenate([np.zeros_like(sq[:, :1]), np.cumsum(sq, axis=1)], axis=1)
    window = csum[:, size:] - csum[:, : csum.shape[1] - size]
    return [(x / (bias + alpha / size * window) ** beta).astype(a[0].dtype)]


def _pool2d(node: Node, a: list[np.ndarray]) -> list[np.ndarray]:
    at = node.attrs
    args = (a[0], at["kernel"], at.get("strides", [1, 1]), at.get("padding", [0, 0, 0, 0]))
    ceil_mode = bool(at.get("ceil_mode", False))
    if at["kind"] == "max":
        return [R.max_pool2d_nchw(*args, at.get("dilation", [1, 1]), ceil_mode)]
    return [R.avg_pool2d_nchw(*args, ceil_mode, bool(at.get("count_include_pad", False)))]


def _global_pool2d(node: Node, a: list[np.ndarray]) -> list[np.ndarray]:
    if node.attrs.get("qparams") is not None:  # an int8 mean (`quant_ops.global_avg_pool_q`)
        return [quant_ops.global_avg_pool_q(node, a[0])]
    if node.attrs["kind"] == "max":
        return [R.global_max_pool2d_nchw(a[0])]
    return [R.global_avg_pool2d_nchw(a[0])]


def _split(node: Node, a: list[np.ndarray]) -> list[np.ndarray]:
    cuts = np.cumsum(node.attrs["sizes"])[:-1]
    return [np.ascontiguousarray(p) for p in np.split(a[0], cuts, axis=node.attrs["axis"])]


def _cast(x: np.ndarray, dtype: str) -> np.ndarray:
    """astype; a float16 cast overflowing to inf is what ONNX Runtime gives: no warning."""
    with np.errstate(over="ignore"):
        return x.astype(dtype)


def _pad(node: Node, a: list[np.ndarray]) -> list[np.ndarray]:
    """Constant padding; negative pads crop (as ONNX)."""
    x, pads = a[0], node.attrs["pads"]
    n = x.ndim
    widths = [(max(0, pads[i]), max(0, pads[i + n])) for i in range(n)]
    out = np.pad(x, widths, constant_values=np.asarray(node.attrs.get("value", 0.0), x.dtype))
    crop = tuple(slice(-min(0, pads[i]), out.shape[i] + min(0, pads[i + n])) for i in range(n))
    return [np.ascontiguousarray(out[crop])]


def _reduce_mean(node: Node, a: list[np.ndarray]) -> list[np.ndarray]:
    axes = tuple(node.attrs["axes"]) or None
    keep = bool(node.attrs.get("keepdims", True))
    return [np.asarray(a[0].mean(axis=axes, keepdims=keep, dtype=np.float64), a[0].dtype)]


def _unary(fn: Callable[..., np.ndarray], *keys: str) -> Kernel:
    return lambda node, a: [fn(a[0], *(node.attrs[k] for k in keys))]


def _binary(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Kernel:
    return lambda node, a: [np.asarray(fn(a[0], a[1]))]


def _ln(node: Node) -> dict:
    return {"axis": node.attrs["axis"], "epsilon": float(node.attrs["epsilon"])}


KERNELS: dict[str, Kernel] = {
    "conv2d": _conv2d,
    "dense": _dense,
    "matmul": _matmul,
    "batch_norm": _batch_norm,
    "relu": _unary(R.relu),
    "sigmoid": _unary(R.sigmoid),
    "hard_swish": _unary(R.hard_swish),
    "silu": _unary(R.silu),
    "leaky_relu": _unary(R.leaky_relu, "alpha"),
    "clip": _unary(R.clip, "lo", "hi"),
    "hard_sigmoid": _unary(R.hard_sigmoid, "alpha", "beta"),
    "add": _binary(R.add),
    "sub": _binary(R.subtract),
    "mul": _binary(R.multiply),
    "div": _binary(R.divide),
    "channel_affine": lambda node, a: [
        R.affine(np.concatenate(a[:-2], axis=1), *a[-2:], relu=bool(node.attrs.get("relu")))
    ],
    "lrn": _lrn,
    "pool2d": _pool2d,
    "global_pool2d": _global_pool2d,
    "reshape": lambda node, a: [a[0].reshape(node.attrs["shape"])],
    "transpose": lambda node, a: [np.ascontiguousarray(a[0].transpose(node.attrs["perm"]))],
    "concat": lambda node, a: [np.concatenate(a, axis=node.attrs["axis"])],
    "split": _split,
    "pad": _pad,
    "softmax": lambda node, a: [R.softmax(a[0], node.attrs["axis"])],
    "reduce_mean": _reduce_mean,
    "layout_transform": lambda node, a: [
        layouts.transform(a[0], node.attrs["src"], node.attrs["dst"])
    ],
    "erf": _unary(R.erf),
    "tanh": _unary(R.tanh),
    "sqrt": _unary(R.sqrt),
    "square": _unary(R.square),
    "gelu": _unary(R.gelu),
    "equal": _binary(R.equal),
    "where": lambda node, a: [R.where(*a)],
    "cast": lambda node, a: [_cast(a[0], node.attrs["dtype"])],
    "gather": lambda node, a: [R.gather(a[0], a[1], node.attrs["axis"])],
    "expand": lambda node, a: [R.broadcast_to(a[0], node.attrs["shape"])],
    "slice": lambda node, a: [
        R.slice_axis(a[0], node.attrs["axis"], node.attrs["begin"], node.attrs["end"])
    ],
    "layer_norm": lambda node, a: [
        R.layer_norm(a[0], a[1], a[2] if len(a) > 2 else None, **_ln(node))
    ],
    "attention": lambda node, a: [
        R.attention(
            a[0],
            a[1],
            a[2],
            a[3] if len(a) > 3 else None,
            node.attrs["scale"],
            {k[:-7]: v for k, v in node.attrs.items() if k.endswith("_layout")},
        )
    ],  # fmt: skip
    **{op: quant_ops.kernel for op in quant_ops.QUANT_OPS},
    **{op: packed_ops.kernel for op in packed_ops.PACKED_OPS},
}
assert set(KERNELS) == set(OPS), "every graph op needs an interpreter kernel"


def _check_inputs(graph: Graph, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The runtime inputs as arrays of their declared dtype; GraphError for a missing,
    unknown or misshaped input."""
    declared = {v.name: v for v in graph.inputs}
    missing = [n for n in declared if n not in inputs]
    extra = [n for n in inputs if n not in declared]
    if missing or extra:
        parts = [f"missing {missing}"] * bool(missing) + [f"unknown {extra}"] * bool(extra)
        raise GraphError(
            f"graph {graph.name!r}: inputs {'; '.join(parts)}; the graph takes "
            + ", ".join(f"{v.name}{list(v.shape)}" for v in graph.inputs)
        )
    out = {}
    for name, v in declared.items():
        arr = np.asarray(inputs[name])
        if arr.shape != v.shape:
            raise GraphError(
                f"graph {graph.name!r}: input {name!r} must have shape {list(v.shape)}, "
                f"got {list(arr.shape)}"
            )
        if arr.dtype.kind not in "biuf":
            raise GraphError(
                f"graph {graph.name!r}: input {name!r} must be numeric, got {arr.dtype}"
            )
        out[name] = arr.astype(v.dtype, copy=False)
    return out


def run_node(node: Node, args: list[np.ndarray]) -> list[np.ndarray]:
    """The outputs of one node on its input arrays (in node.inputs order); GraphError naming
    the node if the op is unknown or the arrays do not fit its attrs."""
    kernel = KERNELS.get(node.op)
    if kernel is None:
        raise GraphError(f"{node.where()}: unknown op; graph ops are {', '.join(OPS)}")
    try:
        return kernel(node, args)
    except (ValueError, TaskError, KeyError, TypeError) as err:
        raise GraphError(f"{node.where()}: {type(err).__name__}: {err}") from None


def run_graph_all(graph: Graph, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every value of `graph` (inputs, params and all node outputs) computed from `inputs`."""
    env: dict[str, np.ndarray] = dict(graph.params)
    env.update(_check_inputs(graph, inputs))
    for node in graph.nodes:
        try:
            args = [env[i] for i in node.inputs]
        except KeyError as err:
            raise GraphError(
                f"{node.where()}: input {err.args[0]!r} is not computed before it"
            ) from None
        results = run_node(node, args)
        if len(results) != len(node.outputs):
            raise GraphError(
                f"{node.where()}: computed {len(results)} outputs for {len(node.outputs)} names"
            )
        for name, arr in zip(node.outputs, results, strict=True):
            want = graph.values.get(name)
            if want is not None and (arr.shape != want.shape or str(arr.dtype) != want.dtype):
                raise GraphError(
                    f"{node.where()}: output {name!r} is {list(arr.shape)} {arr.dtype}, but the "
                    f"value table says {list(want.shape)} {want.dtype} (run infer_shapes?)"
                )
            env[name] = arr
    return env


def run_graph(graph: Graph, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The graph outputs, by name, computed from `inputs` (runtime input name -> array)."""
    env = run_graph_all(graph, inputs)
    missing = [o for o in graph.outputs if o not in env]
    if missing:
        raise GraphError(f"graph {graph.name!r}: outputs {missing} are never computed")
    return {o: env[o] for o in graph.outputs}
