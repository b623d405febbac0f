"""ONNX import: an ONNX model (file, bytes or ModelProto) -> the tunefarm graph IR.

Why a normalising importer: ONNX spells one computation in many ways (attribute vs input
forms that change with the opset, auto_pad, Gemm's transposes and scales, shape arithmetic
that PyTorch exports as Shape->Gather->Unsqueeze->Concat->Reshape). Passes and the compiler
should see one form only: static shapes, explicit 4-sided padding, weights as params, NCHW
activations and OIHW weights. So the importer

- reads the model and runs the ONNX checker (errors become FrontendError naming the file);
- resolves every runtime input to a static shape (float32, or int64/int32 token ids and
  masks that only feed Gather indices, Cast, Equal, Where and reshapes; dynamic dims need
  input_shapes, which the CLI fills from `--input-shape NAME:1,3,224,224`);
- folds every node whose inputs are all constants with the ONNX reference evaluator (numpy),
  and turns Shape/Size of a statically shaped value into a constant, so shape arithmetic
  disappears and only e.g. one reshape with a resolved shape remains;
- maps each remaining node with one handler per ONNX op type (HANDLERS) to graph nodes,
  inferring output shapes as it goes, and fails with FrontendError naming the node for
  anything outside the supported subset.

Constants become graph params only when a graph node reads them, so the int64 shape
tensors of folded subgraphs never reach the graph.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from tunefarm.frontend import onnx_index, onnx_integer, onnx_quant, onnx_resize, validate
from tunefarm.frontend.limits import (
    default_max_tensor_bytes,
    nodes_problem,
    over_budget,
    predict_outputs,
)
from tunefarm.graph.ir import Graph, GraphError, Node, Value, fresh_name
from tunefarm.graph.shapes import infer_node, infer_shapes

__all__ = ["FrontendError", "MAX_OPSET", "SUPPORTED_OPS", "load_onnx"]

MIN_OPSET = 7
# Every change to the ops imported or folded here up to opset 28 adds element types or an
# attribute the handlers refuse or do not need (AveragePool dilations, Pad wrap mode, Cast
# saturate/round_mode for float8); a newer opset may change meanings, so it is refused.
MAX_OPSET = min(28, onnx.defs.onnx_opset_version())
FLOAT_MAX = float(np.finfo(np.float32).max)
# Run-time inputs: float32 tensors, and integer token ids / attention masks
INPUT_DTYPES = {
    onnx.TensorProto.FLOAT: "float32",
    onnx.TensorProto.INT64: "int64",
    onnx.TensorProto.INT32: "int32",
    onnx.TensorProto.BOOL: "bool",  # one byte a value, read as 0/1 (cast to float32 masks)
}


class FrontendError(GraphError):
    """A model the importer cannot read or map to the graph IR; the message names the file,
    input or node and says what to change."""


# ---------------------------------------------------------------- reading and checking
def read_model(
    model: str | os.PathLike | bytes | onnx.ModelProto, max_tensor_bytes: int | None = None
) -> tuple[onnx.ModelProto, str]:
    """The parsed model and how messages name it. A file's external data is read (from the
    file's directory) only after every tensor's declared size and data size passed the
    budget; bytes and ModelProtos have no directory, so their external data is refused."""
    limit = _budget(max_tensor_bytes)
    if isinstance(model, onnx.ModelProto):
        proto, label = model, model.graph.name or "<ModelProto>"
    elif isinstance(model, bytes | bytearray):
        label = "<bytes>"
        proto = _parse(label, lambda: onnx.load_model_from_string(bytes(model)))
    elif isinstance(model, str | os.PathLike):
        path = Path(model)
        label = str(path)
        if not path.exists():
            raise FrontendError(f"{label}: no such file")
        if not path.is_file():
            raise FrontendError(f"{label}: not a file")
        proto = _parse(label, lambda: onnx.load(str(path), load_external_data=False))
        _check_tensors(proto, label, limit)
        problem = validate.external_files(proto, str(path.parent), limit)
        if problem:
            raise FrontendError(f"{label}: {problem}")
        _parse(label, lambda: onnx.load_external_data_for_model(proto, str(path.parent)))
        return proto, label
    else:
        raise FrontendError(
            f"model must be a path, bytes or onnx.ModelProto, got {type(model).__name__}"
        )
    problem = validate.external_data(proto)
    if problem:
        raise FrontendError(f"{label}: {problem}")
    _check_tensors(proto, label, limit)
    return proto, label


def _budget(max_tensor_bytes: int | None) -> int:
    """The tensor size limit: the argument, else the environment's (a bad value of
    TUNEFARM_MAX_TENSOR_BYTES is a FrontendError naming it)."""
    if max_tensor_bytes is not None:
        if isinstance(max_tensor_bytes, bool) or not isinstance(max_tensor_bytes, int):
            raise TypeError(f"max_tensor_bytes must be an int, got {max_tensor_bytes!r}")
        if max_tensor_bytes < 1:
            raise ValueError(f"max_tensor_bytes must be >= 1, got {max_tensor_bytes}")
        return max_tensor_bytes
    try:
        return default_max_tensor_bytes()
    except ValueError as err:
        raise FrontendError(str(err)) from None


def _parse(label: str, loader: Callable[[], Any]) -> Any:
    try:
        return loader()
    except Exception as err:  # protobuf DecodeError, OSError, external data errors, ...
        raise FrontendError(
            f"{label}: not a valid ONNX model: {' '.join(str(err).split())}"
        ) from None


def _check_tensors(proto: onnx.ModelProto, label: str, limit: int) -> None:
    problem = validate.tensor_problem(proto, limit) or validate.value_info_problem(proto)
    if problem:
        raise FrontendError(f"{label}: {problem}")


_CHECKER_NODE = re.compile(
    r"(.*?)\s*==> Context: Bad node spec for node\. Name: (\S*) OpType: (\S+)\s*$", re.S
)


def _checker_message(err: Exception) -> str:
    """The checker's message on one line, starting with the node it names, if any."""
    text = str(err)
    found = _CHECKER_NODE.match(text)
    if found:
        text, name, op = found.groups()
        return f"node {name!r} ({op}): not a valid ONNX node: {' '.join(text.split())}"
    return f"not a valid ONNX model: {' '.join(text.split())}"


def _check(proto: onnx.ModelProto, label: str) -> int:
    """Run the ONNX checker; return the default-domain opset. A model over the node limit
    is refused first: before the checker, the import or any pass spends time on it."""
    too_many = nodes_problem(proto)
    if too_many:
        raise FrontendError(f"{label}: {too_many}")
    try:
        onnx.checker.check_model(validate.checkable(proto))
    except Exception as err:
        raise FrontendError(f"{label}: {_checker_message(err)}") from None
    opsets = [o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")]
    if not opsets:
        raise FrontendError(f"{label}: the model imports no default-domain (ai.onnx) opset")
    if opsets[0] < MIN_OPSET:
        raise FrontendError(
            f"{label}: opset {opsets[0]} is not supported; need opset {MIN_OPSET} or newer "
            "(convert with onnx.version_converter)"
        )
    if opsets[0] > MAX_OPSET:
        raise FrontendError(
            f"{label}: opset {opsets[0]} is not supported; the newest supported opset is "
            f"{MAX_OPSET}"
        )
    if not proto.graph.node:
        raise FrontendError(f"{label}: the graph is empty (it has no nodes)")
    if not proto.graph.output:
        raise FrontendError(f"{label}: the graph has no outputs (it would compute nothing)")
    return int(opsets[0])


# ---------------------------------------------------------------- per-node context
class _Ctx:
    """One ONNX node being imported: attribute/input access and graph-node emission."""

    def __init__(self, imp: _Importer, node: onnx.NodeProto, name: str) -> None:
        self.imp, self.node, self.name, self.opset = imp, node, name, imp.opset
        self.where = f"node {name!r} ({node.op_type})"
        self.attrs = {a.name: self._attr_value(a) for a in node.attribute}
        self.n_emitted = 0

    def _attr_value(self, a: onnx.AttributeProto) -> Any:
        try:
            return _attr_value(a)
        except UnicodeDecodeError:
            raise self.fail(f"attribute {a.name!r} is not valid UTF-8 text") from None
        except Exception as err:  # a tensor attribute whose data does not fit its dims
            raise self.fail(f"attribute {a.name!r} cannot be read: {err}") from None

    # -- errors and attrs
    def fail(self, msg: str) -> FrontendError:
        return FrontendError(f"{self.where}: {msg}")

    def attr(self, key: str, default: Any = None) -> Any:
        return self.attrs.get(key, default)

    def required(self, key: str) -> Any:
        if key not in self.attrs:
            raise self.fail(f"missing required attribute {key!r}")
        return self.attrs[key]

    def ints(self, key: str, default: Sequence[int] | None, n: int) -> list[int]:
        value = self.attrs.get(key, default)
        if value is None:
            raise self.fail(f"missing required attribute {key!r}")
        value = [int(v) for v in value]
        if len(value) != n:
            raise self.fail(
                f"attribute {key}={value} has {len(value)} values; only 2-D ops are supported "
                f"(need {n})"
            )
        return value

    # -- inputs
    @property
    def outputs(self) -> list[str]:
        return list(self.node.output)

    def has(self, i: int) -> bool:
        return i < len(self.node.input) and bool(self.node.input[i])

    def input(self, i: int) -> str:
        if not self.has(i):
            raise self.fail(f"missing input {i}")
        return self.node.input[i]

    def maybe_const(self, i: int) -> np.ndarray | None:
        return self.imp.const(self.input(i)) if self.has(i) else None

    def const(self, i: int, what: str) -> np.ndarray:
        arr = self.imp.const(self.input(i))
        if arr is None:
            raise self.fail(
                f"input {i} ({what}) {self.input(i)!r} must be a constant (an initializer or "
                "computable at import); it is computed at run time"
            )
        return arr

    def scalar_const(self, i: int, what: str) -> Any:
        """Constant input i holding one value (a scalar or a one-element tensor)."""
        arr = self.const(i, what)
        if arr.size != 1:
            raise self.fail(
                f"input {i} ({what}) {self.input(i)!r} must hold one value (a scalar), got "
                f"shape {list(arr.shape)}"
            )
        return arr.reshape(-1)[0]

    def axes_const(self, i: int, what: str = "axes", scalar_ok: bool = False) -> list[int]:
        """Constant 1-D int input i as a list (ONNX Runtime refuses a scalar `axes`, except
        Unsqueeze's: `scalar_ok`)."""
        arr = self.const(i, what)
        if arr.dtype.kind not in "iu" or (arr.ndim != 1 and not (scalar_ok and arr.ndim == 0)):
            raise self.fail(
                f"input {i} ({what}) {self.input(i)!r} must be a 1-D tensor of ints, got "
                f"{arr.dtype} of shape {list(arr.shape)}"
            )
        return [int(a) for a in arr.reshape(-1)]

    def shape(self, i: int) -> tuple[int, ...]:
        return self.imp.shape(self.input(i), self)

    def value(self, i: int, ints_ok: bool = False) -> str:
        """Graph value name for input i (a const becomes a param on first use); integer
        values only where `ints_ok` (reshapes, gather indices, casts)."""
        name = self.imp.graph_value(self.input(i), self)
        value = self.imp.graph.values[name]
        if 0 in value.shape:
            raise self.fail(
                f"input {i} {self.input(i)!r} is a zero-size tensor (shape {list(value.shape)}); "
                "zero-size tensors are not supported"
            )
        if value.dtype != "float32" and not (ints_ok and np.dtype(value.dtype).kind in "biu"):
            raise self.fail(
                f"input {i} {self.input(i)!r} has dtype {value.dtype}; only float32 tensors "
                "are computed at run time (integer inputs only feed Gather indices, Cast, "
                "Equal, Where and reshapes)"
            )
        return name

    def number(self, i: int) -> str:
        """Input i as a float32 graph value: integer or boolean constants become float
        params, integer run-time values go through one cast node (masks are float 0/1 at
        run time, which every integer below 2**24 survives exactly)."""
        arr = self.maybe_const(i)
        if arr is not None and arr.dtype != np.float32:
            if arr.dtype.kind not in "biuf":
                raise self.fail(f"input {i} {self.input(i)!r} has dtype {arr.dtype}")
            return self.param(f"{self.input(i)}_f32", arr.astype(np.float32))
        name = self.value(i, ints_ok=True)
        if self.imp.graph.values[name].dtype == "float32":
            return name
        if name not in self.imp.casts:
            self.imp.casts[name] = self.emit("cast", [name], {"dtype": "float32"})
        return self.imp.casts[name]

    def param(self, base: str, array: np.ndarray) -> str:
        name = self.imp.fresh(base)
        self.imp.add_param(name, np.asarray(array))
        return name

    def scalar(self, base: str, value: float) -> str:
        return self.param(f"{self.name}/{base}", np.asarray(value, np.float32))

    # -- outputs
    def alias(self, out: str, src: str) -> None:
        self.imp.alias[out] = self.imp.resolve(src)

    def emit(
        self, op: str, inputs: list[str], attrs: dict[str, Any], out: str | None = None
    ) -> str:
        """Add a graph node with one output (`out`, or a fresh intermediate name)."""
        return self.emit_multi(op, inputs, attrs, [out or self.imp.fresh(f"{self.name}/{op}")])[0]

    def emit_multi(
        self, op: str, inputs: list[str], attrs: dict[str, Any], outs: list[str]
    ) -> list[str]:
        name = self.name if self.n_emitted == 0 else self.imp.fresh(f"{self.name}/{op}")
        self.n_emitted += 1
        node = Node(name, op, inputs, outs, attrs)
        try:
            values = infer_node(self.imp.graph, node)
        except GraphError as err:
            msg = str(err).removeprefix(f"{node.where()}: ")
            raise self.fail(f"as graph op {op}: {msg}") from None
        for v in values:
            self.imp.check_size(self, f"output {v.name!r}", v.shape, v.dtype)
        for v in values:
            self.imp.graph.values[v.name] = v
        self.imp.graph.nodes.append(node)
        return outs


def _attr_value(a: onnx.AttributeProto) -> Any:
    value = helper.get_attribute_value(a)
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, onnx.TensorProto):
        return numpy_helper.to_array(value)
    if isinstance(value, list) and value and isinstance(value[0], bytes):
        return [v.decode() for v in value]
    return value


def _axis(cx: _Ctx, axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < rank:
        raise cx.fail(f"{what} {axis} is out of range for rank {rank}")
    return axis % rank


# ---------------------------------------------------------------- handlers: conv, pool
def _window(cx: _Ctx, kernel: list[int], size: Sequence[int]) -> tuple[list[int], ...]:
    """strides, explicit padding (top, left, bottom, right) and dilations; auto_pad resolved."""
    strides = cx.ints("strides", [1, 1], 2)
    dilation = cx.ints("dilations", [1, 1], 2)
    for key, values in (("kernel_shape", kernel), ("strides", strides), ("dilations", dilation)):
        if min(values) < 1:
            raise cx.fail(f"attribute {key}={values} must be >= 1")
    auto = cx.attr("auto_pad", "NOTSET")
    if auto == "NOTSET":
        return strides, cx.ints("pads", [0, 0, 0, 0], 4), dilation
    if auto == "VALID":
        return strides, [0, 0, 0, 0], dilation
    if auto not in ("SAME_UPPER", "SAME_LOWER"):
        raise cx.fail(f"unknown auto_pad {auto!r}")
    begin, end = [], []
    for n, k, s, d in zip(size, kernel, strides, dilation, strict=True):
        out = -(-n // s)
        total = max(0, (out - 1) * s + (k - 1) * d + 1 - n)
        small = total // 2
        begin.append(small if auto == "SAME_UPPER" else total - small)
        end.append(total - begin[-1])
    return strides, begin + end, dilation


def _data_4d(cx: _Ctx, what: str) -> tuple[int, ...]:
    shape = cx.shape(0)
    if len(shape) != 4:
        raise cx.fail(f"only 2-D {what} (4-D NCHW data) is supported, got data shape {list(shape)}")
    return shape


def _window_1d(cx: _Ctx, k: int, size: int) -> tuple[list[int], list[int], list[int]]:
    """A 1-D window's stride, (begin, end) padding and dilation; auto_pad resolved."""
    (s,), (d,) = cx.ints("strides", [1], 1), cx.ints("dilations", [1], 1)
    if min(s, d) < 1:
        raise cx.fail(f"attributes strides={[s]} and dilations={[d]} must be >= 1")
    auto = cx.attr("auto_pad", "NOTSET")
    if auto == "NOTSET":
        return [s], cx.ints("pads", [0, 0], 2), [d]
    if auto == "VALID":
        return [s], [0, 0], [d]
    if auto not in ("SAME_UPPER", "SAME_LOWER"):
        raise cx.fail(f"unknown auto_pad {auto!r}")
    total = max(0, (-(-size // s) - 1) * s + (k - 1) * d + 1 - size)
    begin = total // 2 if auto == "SAME_UPPER" else total - total // 2
    return [s], [begin, total - begin], [d]


def _conv1d(cx: _Ctx) -> None:
    """Conv of 3-D [N, C, L] data (Whisper's front end) as a conv2d over [N, C, 1, L] with
    the weight [O, C/g, 1, K]: the same sums, with the 2-D templates and fusion."""
    n, c, length = cx.shape(0)
    w = cx.maybe_const(1)
    if w is None or np.asarray(w).ndim != 3 or 0 in np.asarray(w).shape:
        raise cx.fail(f"weight {cx.input(1)!r} must be a constant non-empty 3-D OIK tensor")
    w = np.asarray(w, np.float32)
    if cx.has(2) and cx.maybe_const(2) is None:
        raise cx.fail(f"input 2 (bias) {cx.input(2)!r} must be a constant initializer")
    (k,) = cx.ints("kernel_shape", [w.shape[2]], 1)
    if k != w.shape[2]:
        raise cx.fail(f"kernel_shape {[k]} differs from the weight's {[w.shape[2]]}")
    (s,), pads, (d,) = _window_1d(cx, k, length)
    x4 = cx.emit("reshape", [cx.value(0)], {"shape": [n, c, 1, length]})
    inputs = [x4, cx.param(f"{cx.name}/weight_2d", w.reshape(w.shape[0], w.shape[1], 1, k))]
    if cx.has(2):
        inputs.append(cx.value(2))
    attrs = {
        "strides": [1, s],
        "padding": [0, pads[0], 0, pads[1]],
        "dilation": [1, d],
        "groups": int(cx.attr("group", 1)),
        "epilogue": ["bias"] if cx.has(2) else [],
    }
    y4 = cx.emit("conv2d", inputs, attrs)
    out = cx.imp.graph.values[y4].shape
    cx.emit("reshape", [y4], {"shape": [out[0], out[1], out[3]]}, cx.outputs[0])


def _conv(cx: _Ctx) -> None:
    shape = cx.shape(0)
    if len(shape) == 3:
        _conv1d(cx)
        return
    if len(shape) != 4:
        raise cx.fail(
            f"only 1-D and 2-D convolution (3-D or 4-D data) is supported, got data shape "
            f"{list(shape)}"
        )
    x, w = shape, cx.shape(1)
    for i, what, whats in ((1, "weight", "weights"), (2, "bias", "biases")):
        if cx.has(i) and cx.maybe_const(i) is None:
            raise cx.fail(
                f"input {i} ({what}) {cx.input(i)!r} is computed at run time; convolution "
                f"{whats} must be constant initializers"
            )
    if len(w) != 4 or 0 in w:
        raise cx.fail(f"weight {cx.input(1)!r} must be a non-empty 4-D OIHW tensor, got {list(w)}")
    kernel = cx.ints("kernel_shape", list(w[2:]), 2)
    if tuple(kernel) != tuple(w[2:]):
        raise cx.fail(f"kernel_shape {kernel} differs from the weight's {list(w[2:])}")
    strides, pads, dilation = _window(cx, kernel, x[2:])
    inputs = [cx.value(0), cx.value(1)]
    if cx.has(2):
        inputs.append(cx.value(2))
    attrs = {
        "strides": strides,
        "padding": pads,
        "dilation": dilation,
        "groups": int(cx.attr("group", 1)),
        "epilogue": ["bias"] if cx.has(2) else [],
    }
    cx.emit("conv2d", inputs, attrs, cx.outputs[0])


def _pool(cx: _Ctx, kind: str) -> None:
    if len(cx.outputs) > 1 and cx.outputs[1]:
        raise cx.fail("the Indices output is not supported; use MaxPool with one output")
    x = _data_4d(cx, "pooling")
    kernel = cx.ints("kernel_shape", None, 2)
    strides, pads, dilation = _window(cx, kernel, x[2:])
    if kind == "avg" and dilation != [1, 1]:
        raise cx.fail(f"AveragePool dilations {dilation} are not supported")
    attrs = {
        "kind": kind,
        "kernel": kernel,
        "strides": strides,
        "padding": pads,
        "dilation": dilation,
        "ceil_mode": bool(cx.attr("ceil_mode", 0)),
        "count_include_pad": bool(cx.attr("count_include_pad", 0)),
    }
    cx.emit("pool2d", [cx.value(0)], attrs, cx.outputs[0])


def _global_pool(cx: _Ctx, kind: str) -> None:
    _data_4d(cx, "global pooling")
    cx.emit("global_pool2d", [cx.value(0)], {"kind": kind}, cx.outputs[0])


def _batch_norm(cx: _Ctx) -> None:
    if any(cx.outputs[1:]):
        raise cx.fail(
            "training-mode outputs (running/saved mean and var) are not supported; "
            "export the model in inference (eval) mode"
        )
    if cx.attr("training_mode", 0):
        raise cx.fail("training_mode=1 is not supported; export in inference mode")
    if cx.attr("spatial", 1) != 1:
        raise cx.fail("spatial=0 (per-activation statistics) is not supported")
    inputs = [cx.value(i) for i in range(5)]
    cx.emit("batch_norm", inputs, {"epsilon": float(cx.attr("epsilon", 1e-5))}, cx.outputs[0])


def _lrn(cx: _Ctx) -> None:
    attrs = {
        "size": int(cx.required("size")),
        "alpha": float(cx.attr("alpha", 1e-4)),
        "beta": float(cx.attr("beta", 0.75)),
        "bias": float(cx.attr("bias", 1.0)),
    }
    cx.emit("lrn", [cx.value(0)], attrs, cx.outputs[0])


# ---------------------------------------------------------------- handlers: matrix products
def _per_output_bias(c: np.ndarray, beta: float, n: int) -> np.ndarray | None:
    """C as a (n,) bias if it broadcasts along the output features only."""
    if c.ndim > 2 or c.size not in (1, n) or (c.ndim == 2 and c.shape[0] != 1):
        return None
    return (np.broadcast_to(c.reshape(-1), (n,)) * c.dtype.type(beta)).astype(c.dtype)


def _gemm_c_term(cx: _Ctx, y: str, beta: float) -> None:
    """Add beta * C (a runtime or non-per-output C) to y, writing the node's output."""
    c = cx.maybe_const(2)
    if c is not None:
        c_name = (
            cx.value(2) if beta == 1.0 else cx.param(f"{cx.input(2)}_beta", c * c.dtype.type(beta))
        )
    else:
        c_name = cx.value(2)
        if beta != 1.0:
            c_name = cx.emit("mul", [c_name, cx.scalar("beta", beta)], {})
    cx.emit("add", [y, c_name], {}, cx.outputs[0])


def _gemm(cx: _Ctx) -> None:
    alpha, beta = float(cx.attr("alpha", 1.0)), float(cx.attr("beta", 1.0))
    trans_a, trans_b = bool(cx.attr("transA", 0)), bool(cx.attr("transB", 0))
    has_c = cx.has(2) and beta != 0.0
    a = cx.value(0)
    if trans_a:
        a = cx.emit("transpose", [a], {"perm": [1, 0]})
    b = cx.maybe_const(1)
    if b is None:
        _gemm_matmul(cx, a, trans_b, alpha, beta, has_c)
        return
    if b.ndim != 2:
        raise cx.fail(f"input 1 (B) {cx.input(1)!r} must be 2-D, got shape {list(b.shape)}")
    w = b if trans_b else b.T
    if alpha != 1.0:
        w = w * w.dtype.type(alpha)
    w_name = cx.value(1) if (trans_b and alpha == 1.0) else cx.param(f"{cx.input(1)}_dense", w)
    c = cx.maybe_const(2) if has_c else None
    bias = _per_output_bias(c, beta, w.shape[0]) if c is not None else None
    if bias is not None:
        same = c.shape == bias.shape and beta == 1.0
        b_name = cx.value(2) if same else cx.param(f"{cx.input(2)}_bias", bias)
        cx.emit("dense", [a, w_name, b_name], {"epilogue": ["bias"]}, cx.outputs[0])
    elif has_c:
        _gemm_c_term(cx, cx.emit("dense", [a, w_name], {"epilogue": []}), beta)
    else:
        cx.emit("dense", [a, w_name], {"epilogue": []}, cx.outputs[0])


def _gemm_matmul(cx: _Ctx, a: str, trans_b: bool, alpha: float, beta: float, has_c: bool) -> None:
    """Gemm with a runtime B: matmul, then mul by alpha and add beta * C as needed."""
    b = cx.value(1)
    if trans_b:
        b = cx.emit("transpose", [b], {"perm": [1, 0]})
    last = alpha == 1.0 and not has_c
    y = cx.emit("matmul", [a, b], {}, cx.outputs[0] if last else None)
    if alpha != 1.0:
        y = cx.emit("mul", [y, cx.scalar("alpha", alpha)], {}, None if has_c else cx.outputs[0])
    if has_c:
        _gemm_c_term(cx, y, beta)


def _matmul(cx: _Ctx) -> None:
    b, a = cx.maybe_const(1), cx.shape(0)
    if len(a) >= 2 and b is not None and b.ndim == 2:
        w = cx.param(f"{cx.input(1)}_T", b.T)
        if len(a) == 2:
            cx.emit("dense", [cx.value(0), w], {"epilogue": []}, cx.outputs[0])
            return
        # [..., K] @ [K, N]: a dense on the leading dims folded into rows (a transformer's
        # projections), viewed back as [..., N]
        rows = cx.emit("reshape", [cx.value(0)], {"shape": [math.prod(a[:-1]), a[-1]]})
        y = cx.emit("dense", [rows, w], {"epilogue": []})
        cx.emit("reshape", [y], {"shape": [*a[:-1], b.shape[1]]}, cx.outputs[0])
    else:
        cx.emit("matmul", [cx.value(0), cx.value(1)], {}, cx.outputs[0])


# ---------------------------------------------------------------- handlers: elementwise
def _simple(op: str, **defaults: float) -> Callable[[_Ctx], None]:
    """A one-input op whose float attrs (ONNX name = graph name) have these defaults."""

    def handler(cx: _Ctx) -> None:
        attrs = {k: float(cx.attr(k, v)) for k, v in defaults.items()}
        cx.emit(op, [cx.value(0)], attrs, cx.outputs[0])

    return handler


def _binary(op: str) -> Callable[[_Ctx], None]:
    def handler(cx: _Ctx) -> None:
        if "broadcast" in cx.attrs:
            raise cx.fail("the legacy 'broadcast' attribute (opset < 7) is not supported")
        plain = all(cx.imp.dtype(cx.input(i), cx) == "float32" for i in (0, 1))
        kinds = [cx.imp.is_int(cx.input(i), cx) for i in (0, 1)]
        if kinds[0] != kinds[1]:  # ONNX takes one element type; ORT refuses such models
            types = [cx.imp.logical_dtype(cx.input(i), cx) for i in (0, 1)]
            raise cx.fail(
                f"inputs 0 and 1 ({cx.input(0)!r}, {cx.input(1)!r}) differ in element type "
                f"({types[0]} and {types[1]}); cast one of them"
            )
        if plain:
            cx.emit(op, [cx.value(0), cx.value(1)], {}, cx.outputs[0])
        elif op == "div" and all(cx.imp.is_int(cx.input(i), cx) for i in (0, 1)):
            # integer division truncates (run-time integers are float32 values)
            onnx_index.truncate(cx, cx.emit(op, [cx.number(0), cx.number(1)], {}), cx.outputs[0])
        else:
            cx.emit(op, [cx.number(0), cx.number(1)], {}, cx.outputs[0])

    return handler


def _clip(cx: _Ctx) -> None:
    if cx.opset < 11:
        lo, hi = float(cx.attr("min", -FLOAT_MAX)), float(cx.attr("max", FLOAT_MAX))
    else:
        lo = float(cx.scalar_const(1, "min")) if cx.has(1) else -FLOAT_MAX
        hi = float(cx.scalar_const(2, "max")) if cx.has(2) else FLOAT_MAX
    lo, hi = max(lo, -FLOAT_MAX), min(hi, FLOAT_MAX)
    cx.emit("clip", [cx.value(0)], {"lo": lo, "hi": hi}, cx.outputs[0])


def _sum(cx: _Ctx) -> None:
    names = [cx.value(i) for i in range(len(cx.node.input))]
    if len(names) == 1:
        cx.alias(cx.outputs[0], cx.input(0))
        return
    acc = names[0]
    for i, other in enumerate(names[1:], start=2):
        acc = cx.emit("add", [acc, other], {}, cx.outputs[0] if i == len(names) else None)


def _softmax(cx: _Ctx) -> None:
    shape = cx.shape(0)
    rank = len(shape)
    axis = _axis(cx, int(cx.attr("axis", -1 if cx.opset >= 13 else 1)), rank)
    if cx.opset >= 13 or axis == rank - 1:
        cx.emit("softmax", [cx.value(0)], {"axis": axis}, cx.outputs[0])
        return
    # opset < 13: softmax over the input flattened to 2-D at `axis`
    flat = [math.prod(shape[:axis]), math.prod(shape[axis:])]
    y = cx.emit("reshape", [cx.value(0)], {"shape": flat})
    y = cx.emit("softmax", [y], {"axis": 1})
    cx.emit("reshape", [y], {"shape": list(shape)}, cx.outputs[0])


def _reduce_mean(cx: _Ctx) -> None:
    rank = len(cx.shape(0))
    if cx.opset >= 18:
        axes = cx.axes_const(1) if cx.has(1) else []
        noop = bool(cx.attr("noop_with_empty_axes", 0))
    else:
        axes, noop = list(cx.attr("axes", [])), False
    if not axes and noop:
        cx.alias(cx.outputs[0], cx.input(0))
        return
    axes = sorted({_axis(cx, int(a), rank, "axes") for a in axes}) or list(range(rank))
    attrs = {"axes": axes, "keepdims": bool(cx.attr("keepdims", 1))}
    cx.emit("reduce_mean", [cx.value(0)], attrs, cx.outputs[0])


# ---------------------------------------------------------------- handlers: shapes, data movement
def _reshape_to(cx: _Ctx, shape: Sequence[int]) -> None:
    value = cx.value(0, ints_ok=True)
    cx.emit("reshape", [value], {"shape": [int(d) for d in shape]}, cx.outputs[0])


def _resolve_shape(cx: _Ctx, src: tuple[int, ...], target: list[int], allowzero: bool) -> list[int]:
    """ONNX Reshape's target: 0 copies the input dim (unless allowzero), -1 is inferred."""
    out = []
    for i, d in enumerate(target):
        if d == 0 and not allowzero:
            if i >= len(src):
                raise cx.fail(
                    f"shape {target}: 0 at position {i} but the input has rank {len(src)}"
                )
            d = src[i]
        elif d < -1:
            raise cx.fail(f"shape {target}: invalid dim {d}")
        out.append(d)
    total, known = math.prod(src), math.prod(d for d in out if d != -1)
    if out.count(-1) > 1:
        raise cx.fail(f"shape {target}: more than one -1")
    if -1 in out:
        if known == 0 or total % known:
            raise cx.fail(f"cannot reshape {list(src)} ({total} elements) to {target}")
        out[out.index(-1)] = total // known
    if math.prod(out) != total:
        raise cx.fail(f"cannot reshape {list(src)} ({total} elements) to {target} -> {out}")
    return out


def _reshape(cx: _Ctx) -> None:
    target = [int(d) for d in cx.const(1, "shape").reshape(-1)]
    allowzero = bool(cx.attr("allowzero", 0))
    _reshape_to(cx, _resolve_shape(cx, cx.shape(0), target, allowzero))


def _flatten(cx: _Ctx) -> None:
    shape = cx.shape(0)
    axis = int(cx.attr("axis", 1))
    if not -len(shape) <= axis <= len(shape):
        raise cx.fail(f"axis {axis} is out of range for rank {len(shape)}")
    axis %= len(shape) + 1
    _reshape_to(cx, [math.prod(shape[:axis]), math.prod(shape[axis:])])


def _axes_input_or_attr(cx: _Ctx, scalar_ok: bool = False) -> list[int] | None:
    """Squeeze/Unsqueeze axes: an attribute before opset 13, an input from 13 on."""
    if cx.opset >= 13:
        return cx.axes_const(1, scalar_ok=scalar_ok) if cx.has(1) else None
    axes = cx.attr("axes")
    return None if axes is None else list(axes)


def _squeeze(cx: _Ctx) -> None:
    shape = cx.shape(0)
    axes = _axes_input_or_attr(cx)
    if axes is None:
        drop = {i for i, d in enumerate(shape) if d == 1}
    else:
        drop = {_axis(cx, int(a), len(shape), "axes") for a in axes}
    bad = [a for a in sorted(drop) if shape[a] != 1]
    if bad:
        raise cx.fail(f"cannot squeeze axes {bad} of shape {list(shape)}: size is not 1")
    _reshape_to(cx, [d for i, d in enumerate(shape) if i not in drop])


def _unsqueeze(cx: _Ctx) -> None:
    shape = cx.shape(0)
    axes = _axes_input_or_attr(cx, scalar_ok=True)
    if axes is None:
        raise cx.fail("missing axes")
    rank = len(shape) + len(axes)
    where = {_axis(cx, int(a), rank, "axes") for a in axes}
    if len(where) != len(axes):
        raise cx.fail(f"axes {axes} repeat an axis")
    dims = iter(shape)
    _reshape_to(cx, [1 if i in where else next(dims) for i in range(rank)])


def _transpose(cx: _Ctx) -> None:
    rank = len(cx.shape(0))
    perm = [int(p) for p in cx.attr("perm", list(range(rank))[::-1])]
    cx.emit("transpose", [cx.value(0)], {"perm": perm}, cx.outputs[0])


def _concat(cx: _Ctx) -> None:
    rank = len(cx.shape(0))
    axis = _axis(cx, int(cx.required("axis")), rank)
    inputs = [cx.value(i) for i in range(len(cx.node.input))]
    cx.emit("concat", inputs, {"axis": axis}, cx.outputs[0])


def _split_sizes(cx: _Ctx, dim: int, n_out: int) -> list[int]:
    if cx.opset >= 13:
        sizes = cx.axes_const(1, "split") if cx.has(1) else None
    else:
        sizes = cx.attr("split")
    if sizes:
        return [int(s) for s in sizes]
    n = int(cx.attr("num_outputs", n_out))
    if n < 1:
        raise cx.fail(f"num_outputs={n} must be >= 1")
    if n != n_out:
        raise cx.fail(f"num_outputs={n} differs from the node's {n_out} outputs")
    if cx.opset >= 18 and "num_outputs" in cx.attrs:
        chunk = -(-dim // n)
        return [chunk] * (n - 1) + [dim - chunk * (n - 1)]
    if dim % n:
        raise cx.fail(f"cannot split dim {dim} into {n} equal parts")
    return [dim // n] * n


def _split(cx: _Ctx) -> None:
    shape = cx.shape(0)
    axis = _axis(cx, int(cx.attr("axis", 0)), len(shape))
    sizes = _split_sizes(cx, shape[axis], len(cx.outputs))
    outs = [o or cx.imp.fresh(f"{cx.name}/unused") for o in cx.outputs]
    cx.emit_multi("split", [cx.value(0)], {"axis": axis, "sizes": sizes}, outs)


def _pad(cx: _Ctx) -> None:
    mode = cx.attr("mode", "constant")
    if mode != "constant":
        raise cx.fail(f"Pad mode {mode!r} is not supported; only 'constant'")
    rank = len(cx.shape(0))
    if cx.opset < 11:
        pads, value = [int(p) for p in cx.required("pads")], float(cx.attr("value", 0.0))
    else:
        pads = cx.axes_const(1, "pads")
        value = float(cx.scalar_const(2, "constant_value")) if cx.has(2) else 0.0
        if cx.opset >= 18 and cx.has(3):
            pads = _pads_for_axes(cx, pads, cx.axes_const(3), rank)
    if len(pads) != 2 * rank:
        raise cx.fail(f"pads {pads} must have 2 * rank = {2 * rank} values")
    cx.emit("pad", [cx.value(0)], {"pads": pads, "value": value}, cx.outputs[0])


def _pads_for_axes(cx: _Ctx, pads: list[int], axes: list[int], rank: int) -> list[int]:
    """Opset 18 Pad `axes`: expand pads given for some axes to all axes."""
    if len(pads) != 2 * len(axes):
        raise cx.fail(f"pads {pads} must have 2 values per axis of {axes}")
    full = [0] * (2 * rank)
    for k, a in enumerate(axes):
        a = _axis(cx, int(a), rank, "axes")
        full[a], full[a + rank] = pads[k], pads[k + len(axes)]
    return full


# ---------------------------------------------------------------- handlers: no graph node
def _identity(cx: _Ctx) -> None:
    cx.alias(cx.outputs[0], cx.input(0))


def _dropout(cx: _Ctx) -> None:
    """Inference-mode Dropout is the identity; its mask output is dropped."""
    if cx.opset >= 12 and cx.has(1) and cx.maybe_const(1) is not None:
        cx.scalar_const(1, "ratio")
    if cx.opset >= 12 and cx.has(2) and bool(cx.scalar_const(2, "training_mode")):
        raise cx.fail("training_mode=True is not supported; export in inference mode")
    cx.alias(cx.outputs[0], cx.input(0))
    for o in cx.outputs[1:]:
        if o:
            cx.imp.dropped[o] = f"the mask output of {cx.where}, which the import drops"


def _shape(cx: _Ctx) -> None:
    """Shape of a statically shaped value is a constant (opset 15 start/end slice it)."""
    shape = cx.shape(0)
    start, end = int(cx.attr("start", 0)), cx.attr("end")
    dims = shape[start:] if end is None else shape[start : int(end)]
    cx.imp.consts[cx.outputs[0]] = np.array(dims, np.int64)


def _size(cx: _Ctx) -> None:
    cx.imp.consts[cx.outputs[0]] = np.array(math.prod(cx.shape(0)), np.int64)


def _cast(cx: _Ctx) -> None:
    """Run-time casts. Booleans and integers computed at run time are float32 values (exact
    below 2**24), so: a no-op between equal types, to float32/float64 and between integer
    types; integer graph inputs go through one cast node to float32; a float to an integer
    truncates (float32 -> int32 -> float32); anything to bool is x != 0; to float16 rounds
    to half precision (a cast there and back), the value staying float32."""
    to = np.dtype(_cast_to(cx))
    src = np.dtype(cx.imp.dtype(cx.input(0), cx))
    if to == np.float32 and onnx_quant.is_int8_accumulator(cx):
        onnx_quant.int32_to_float(cx)  # an int8 op's int32 result, in its blocked layout
    elif to == src:
        cx.alias(cx.outputs[0], cx.input(0))
    elif to == np.bool_:
        x = cx.number(0)
        cx.emit("where", [x, cx.scalar("one", 1.0), cx.scalar("zero", 0.0)], {}, cx.outputs[0])
    elif to.kind == "f" and to != np.float16 and src.kind in "biuf":
        cx.imp.alias[cx.outputs[0]] = cx.number(0)
    elif to == np.float16 and src.kind in "biuf":
        # run-time values are float32: a float16 Cast rounds to half precision (to nearest
        # even, overflowing to inf, as ONNX Runtime's) and the value goes on as float32
        half = cx.emit("cast", [cx.number(0)], {"dtype": "float16"})
        cx.emit("cast", [half], {"dtype": "float32"}, cx.outputs[0])
    elif to.kind in "iu" and src.kind in "biu":
        cx.imp.alias[cx.outputs[0]] = cx.number(0)
    elif to.kind in "iu" and src == np.float32:
        onnx_index.truncate(cx, cx.value(0), cx.outputs[0])
    else:
        raise cx.fail(f"casting a run-time value from {src} to {to} is not supported")


def _cast_to(cx: _Ctx) -> np.dtype:
    code = int(cx.required("to"))
    dtype = validate.elem_dtype(code)
    if dtype is None:
        raise cx.fail(f"attribute to={code} is no ONNX element type")
    return dtype


# ---------------------------------------------------------------- handlers: transformer ops
def _gather(cx: _Ctx) -> None:
    """Embedding lookups (a constant table, run-time int ids) and picks along an axis (a
    run-time tensor, constant indices: BERT's pooler takes token 0)."""
    shape = cx.shape(0)
    axis = _axis(cx, int(cx.attr("axis", 0)), len(shape))
    idx = cx.maybe_const(1)
    if idx is None:
        # integers computed at run time are float32 values: cast to int64 to index
        indices = onnx_index.as_index(cx, cx.value(1, ints_ok=True))
        cx.emit("gather", [cx.number(0), indices], {"axis": axis}, cx.outputs[0])
        return
    if idx.dtype.kind not in "iu":
        raise cx.fail(f"input 1 (indices) {cx.input(1)!r} must be integers, got {idx.dtype}")
    if idx.size == 0:
        raise cx.fail(f"input 1 (indices) {cx.input(1)!r} is empty")
    bad = idx[(idx < -shape[axis]) | (idx >= shape[axis])]
    if bad.size:
        raise cx.fail(f"index {int(bad[0])} is out of range for axis {axis} of size {shape[axis]}")
    idx = np.where(idx < 0, idx + shape[axis], idx).astype(np.int64)
    indices = cx.param(f"{cx.input(1)}_idx", idx.reshape(idx.shape or (1,)))
    if idx.ndim:
        cx.emit("gather", [cx.number(0), indices], {"axis": axis}, cx.outputs[0])
        return
    y = cx.emit("gather", [cx.number(0), indices], {"axis": axis})
    cx.emit("reshape", [y], {"shape": [*shape[:axis], *shape[axis + 1 :]]}, cx.outputs[0])


def _layer_norm(cx: _Ctx) -> None:
    if any(cx.outputs[1:]):
        raise cx.fail("the Mean and InvStdDev outputs are not supported (training only)")
    shape = cx.shape(0)
    axis = _axis(cx, int(cx.attr("axis", -1)), len(shape))
    tail = tuple(shape[axis:])
    inputs = [cx.value(0)]
    for i, what in ((1, "scale"), (2, "bias")):
        if not cx.has(i):
            continue
        if cx.shape(i) == tail:
            inputs.append(cx.value(i))
            continue
        arr = cx.maybe_const(i)
        try:
            full = None if arr is None else np.broadcast_to(arr, tail)
        except ValueError:
            full = None
        if full is None:
            raise cx.fail(
                f"input {i} ({what}) {cx.input(i)!r} of shape {list(cx.shape(i))} must have "
                f"the normalised shape {list(tail)} (or be a constant broadcasting to it)"
            )
        inputs.append(cx.param(f"{cx.input(i)}_full", full.astype(np.float32)))
    if len(inputs) == 2:  # no bias: zeros, so the kernel always takes one
        inputs.append(cx.param(f"{cx.name}/zero_bias", np.zeros(tail, np.float32)))
    attrs = {"axis": axis, "epsilon": float(cx.attr("epsilon", 1e-5))}
    cx.emit("layer_norm", inputs, attrs, cx.outputs[0])


def _pow(cx: _Ctx) -> None:
    """Pow by a constant 2 (a variance), 1 or 0.5; other exponents are not compiled."""
    e = float(cx.scalar_const(1, "exponent"))
    if e == 1.0:
        cx.alias(cx.outputs[0], cx.input(0))
    elif e in (2.0, 0.5):
        cx.emit("square" if e == 2.0 else "sqrt", [cx.value(0)], {}, cx.outputs[0])
    elif e == 3.0:  # GPT-2's tanh GELU: x * x * x
        x = cx.value(0)
        cx.emit("mul", [cx.emit("square", [x], {}), x], {}, cx.outputs[0])
    elif e in (-1.0, -0.5):
        x = cx.value(0) if e == -1.0 else cx.emit("sqrt", [cx.value(0)], {})
        cx.emit("div", [cx.scalar("one", 1.0), x], {}, cx.outputs[0])
    else:
        raise cx.fail(
            f"exponent {e:g} is not supported on run-time values; only 3, 2, 1, 0.5, -0.5, -1"
        )


def _expand(cx: _Ctx) -> None:
    shape = cx.shape(0)
    target = cx.axes_const(1, "shape")
    try:
        out = tuple(int(d) for d in np.broadcast_shapes(shape, tuple(target)))
    except ValueError:
        raise cx.fail(f"cannot expand shape {list(shape)} to {target}") from None
    if out == tuple(shape):
        cx.alias(cx.outputs[0], cx.input(0))
    else:
        cx.emit("expand", [cx.value(0)], {"shape": list(out)}, cx.outputs[0])


def _slice(cx: _Ctx) -> None:
    """Slice of a run-time value with constant bounds and step 1: one slice node per axis
    that is cut (negative bounds count from the end and are clamped, as ONNX)."""
    shape = cx.shape(0)
    if cx.opset < 10:
        starts, ends = list(cx.required("starts")), list(cx.required("ends"))
        axes = list(cx.attr("axes", range(len(starts))))
        steps = [1] * len(starts)
    else:
        starts, ends = cx.axes_const(1, "starts"), cx.axes_const(2, "ends")
        axes = cx.axes_const(3, "axes") if cx.has(3) else list(range(len(starts)))
        steps = cx.axes_const(4, "steps") if cx.has(4) else [1] * len(starts)
    if not len(starts) == len(ends) == len(axes) == len(steps):
        raise cx.fail(
            f"starts {starts}, ends {ends}, axes {axes} and steps {steps} differ in length"
        )
    if 0 in steps:
        raise cx.fail(f"steps {steps} must not be 0")
    if any(s != 1 for s in steps):
        _stepped_slice(cx, shape, axes, starts, ends, steps)
        return
    y = cx.value(0, ints_ok=True)
    cuts = []
    for a, b, e in zip(axes, starts, ends, strict=True):
        ax = _axis(cx, int(a), len(shape), "axes")
        dim = shape[ax]
        lo, hi = (min(max(v + dim if v < 0 else v, 0), dim) for v in (int(b), int(e)))
        if lo >= hi:
            raise cx.fail(f"axis {ax}: [{b}:{e}] of size {dim} is empty")
        if (lo, hi) != (0, dim):
            cuts.append((ax, lo, hi))
    if not cuts:
        cx.alias(cx.outputs[0], cx.input(0))
        return
    for i, (ax, lo, hi) in enumerate(cuts):
        out = cx.outputs[0] if i == len(cuts) - 1 else None
        y = cx.emit("slice", [y], {"axis": ax, "begin": lo, "end": hi}, out)


def _stepped_slice(cx: _Ctx, shape, axes, starts, ends, steps) -> None:
    """Slice with steps other than 1 (a reversal, every other row): gathers of constant
    positions, one per axis that is cut."""
    cuts = []
    for a, b, e, st in zip(axes, starts, ends, steps, strict=True):
        ax = _axis(cx, int(a), len(shape), "axes")
        keep = onnx_index.slice_positions(shape[ax], int(b), int(e), int(st))
        if not keep:
            raise cx.fail(f"axis {ax}: [{b}:{e}:{st}] of size {shape[ax]} is empty")
        if keep != list(range(shape[ax])):
            cuts.append((ax, keep))
    if not cuts:
        cx.alias(cx.outputs[0], cx.input(0))
        return
    onnx_index.stepped_slice(cx, shape, cuts, cx.value(0, ints_ok=True))


def _gelu(cx: _Ctx) -> None:
    """ONNX Gelu (opset 20, what torch exports there): the erf form is one op; the tanh
    approximation is spelled out in elementwise ops."""
    approx = cx.attr("approximate", "none")
    if approx == "none":
        cx.emit("gelu", [cx.value(0)], {}, cx.outputs[0])
        return
    if approx != "tanh":
        raise cx.fail(f"approximate={approx!r} is not one of 'none', 'tanh'")
    x = cx.value(0)
    cube = cx.emit("mul", [cx.emit("square", [x], {}), x], {})
    inner = cx.emit("add", [x, cx.emit("mul", [cube, cx.scalar("c", 0.044715)], {})], {})
    t = cx.emit("tanh", [cx.emit("mul", [inner, cx.scalar("k", math.sqrt(2 / math.pi))], {})], {})
    half = cx.emit("mul", [x, cx.scalar("half", 0.5)], {})
    cx.emit("mul", [half, cx.emit("add", [t, cx.scalar("one", 1.0)], {})], {}, cx.outputs[0])


def _equal(cx: _Ctx) -> None:
    cx.emit("equal", [cx.number(0), cx.number(1)], {}, cx.outputs[0])


def _where(cx: _Ctx) -> None:
    cx.emit("where", [cx.number(i) for i in range(3)], {}, cx.outputs[0])


def _and(cx: _Ctx) -> None:
    """Booleans are float 0/1 at run time: a and b = a * b."""
    cx.emit("mul", [cx.number(0), cx.number(1)], {}, cx.outputs[0])


def _or(cx: _Ctx) -> None:
    cx.emit("where", [cx.number(0), cx.scalar("one", 1.0), cx.number(1)], {}, cx.outputs[0])


def _xor(cx: _Ctx) -> None:
    cx.emit("square", [cx.emit("sub", [cx.number(0), cx.number(1)], {})], {}, cx.outputs[0])


def _not(cx: _Ctx) -> None:
    cx.emit("sub", [cx.scalar("one", 1.0), cx.number(0)], {}, cx.outputs[0])


def _conv_transpose(cx: _Ctx) -> None:
    raise cx.fail("ConvTranspose is not supported (no transposed convolution in the graph op set)")


HANDLERS: dict[str, Callable[[_Ctx], None]] = {
    "Add": _binary("add"),
    "AveragePool": lambda cx: _pool(cx, "avg"),
    "BatchNormalization": _batch_norm,
    "Cast": _cast,
    "Clip": _clip,
    "Concat": _concat,
    "Conv": _conv,
    "ConvTranspose": _conv_transpose,
    "Div": _binary("div"),
    "Dropout": _dropout,
    "Equal": _equal,
    "Erf": _simple("erf"),
    "Expand": _expand,
    "Gather": _gather,
    "Gelu": _gelu,
    "LayerNormalization": _layer_norm,
    "Not": _not,
    "And": _and,
    "Or": _or,
    "Xor": _xor,
    "Pow": _pow,
    "Sqrt": _simple("sqrt"),
    "Tanh": _simple("tanh"),
    "Where": _where,
    "Flatten": _flatten,
    "Gemm": _gemm,
    "GlobalAveragePool": lambda cx: _global_pool(cx, "avg"),
    "GlobalMaxPool": lambda cx: _global_pool(cx, "max"),
    "HardSigmoid": _simple("hard_sigmoid", alpha=0.2, beta=0.5),
    "HardSwish": _simple("hard_swish"),
    "Identity": _identity,
    "LRN": _lrn,
    "LeakyRelu": _simple("leaky_relu", alpha=0.01),
    "MatMul": _matmul,
    "MaxPool": lambda cx: _pool(cx, "max"),
    "Mul": _binary("mul"),
    "Pad": _pad,
    "ReduceMean": _reduce_mean,
    "Relu": _simple("relu"),
    "Reshape": _reshape,
    "Shape": _shape,
    "Slice": _slice,
    "Sigmoid": _simple("sigmoid"),
    "Size": _size,
    "Softmax": _softmax,
    "Split": _split,
    "Squeeze": _squeeze,
    "Sub": _binary("sub"),
    "Sum": _sum,
    "Transpose": _transpose,
    "Unsqueeze": _unsqueeze,
    **onnx_quant.HANDLERS,
    **onnx_integer.HANDLERS,
    **onnx_index.HANDLERS,
    **onnx_resize.HANDLERS,
}
# Handlers that also take constant inputs themselves (aliases and shape queries), rather than
# folding the node with the reference evaluator.
NO_FOLD = frozenset(
    {
        "Identity",
        "Dropout",
        "Shape",
        "Size",
        "ConvTranspose",
        "QuantizeLinear",
        "DequantizeLinear",
        "QLinearConv",
        "GatherElements",
    }
)
# Supported only when every input is a constant: evaluated at import, never a graph node.
FOLD_ONLY = frozenset(
    {
        "Abs", "Ceil", "Constant", "ConstantOfShape", "Exp", "Floor",
        "Greater", "GreaterOrEqual", "Less", "LessOrEqual", "Log", "Max", "Min", "Mod",
        "Neg", "Range", "Reciprocal", "ReduceProd", "ReduceSum", "Round",
        "Sign", "NonZero", "ReduceMax", "ReduceMin", "ScatterElements",
        "Sin", "Cos", "ArgMax", "ArgMin", "OneHot", "EyeLike",
    }
)  # fmt: skip
SUPPORTED_OPS = tuple(sorted((set(HANDLERS) - {"ConvTranspose"}) | FOLD_ONLY))


# ---------------------------------------------------------------- the importer
class _Importer:
    """State of one import: constants by ONNX name, aliases, and the graph being built."""

    def __init__(
        self, proto: onnx.ModelProto, label: str, opset: int, name: str, limit: int
    ) -> None:
        self.proto, self.label, self.opset, self.limit = proto, label, opset, limit
        g = proto.graph
        if len(g.sparse_initializer):
            raise FrontendError(f"{label}: sparse initializers are not supported")
        self.consts: dict[str, np.ndarray] = {t.name: self._array(t) for t in g.initializer}
        self.alias: dict[str, str] = {}
        self.dropped: dict[str, str] = {}
        self.taken: set[str] = {n.name for n in g.node} | set(self.consts)
        self.taken |= {v.name for v in (*g.input, *g.output, *g.value_info)}
        self.taken |= {o for n in g.node for o in (*n.input, *n.output)}
        self.node_names: set[str] = set()
        self.casts: dict[str, str] = {}  # int run-time value -> its float32 cast
        self._onnx_types: dict[str, int] | None = None
        self.graph = Graph(name, [], [], [], {}, {})

    def _array(self, t: onnx.TensorProto) -> np.ndarray:
        try:
            return numpy_helper.to_array(t)
        except Exception as err:  # data that does not fit the dims, undecodable strings, ...
            msg = f"{self.label}: initializer {t.name!r} cannot be read: {err}"
            raise FrontendError(msg) from None

    def check_size(self, cx: _Ctx | None, what: str, shape: Sequence[int], dtype: Any) -> None:
        """FrontendError naming the node (or the model) if a tensor of `shape` and `dtype` is
        above the budget or has a zero dim; called before the tensor is allocated."""
        where = cx.where if cx else self.label
        reason = over_budget(what, shape, dtype, self.limit)
        if reason:
            raise FrontendError(f"{where}: {reason}")
        if 0 in shape:
            raise FrontendError(
                f"{where}: {what} would be a zero-size tensor (shape {list(shape)}); zero-size "
                "tensors are not supported"
            )

    # -- names and values
    def fresh(self, base: str) -> str:
        return fresh_name(base, self.taken)

    def node_name(self, index: int, node: onnx.NodeProto) -> str:
        name = node.name if node.name and node.name not in self.node_names else ""
        name = name or self.fresh(f"{node.op_type}_{index}")
        self.node_names.add(name)
        return name

    def resolve(self, name: str) -> str:
        while name in self.alias:
            name = self.alias[name]
        return name

    def const(self, name: str) -> np.ndarray | None:
        return self.consts.get(self.resolve(name))

    def add_param(self, name: str, array: np.ndarray) -> None:
        array = np.ascontiguousarray(array)
        self.graph.params[name] = array
        self.graph.values[name] = Value(name, tuple(array.shape), str(array.dtype))

    def graph_value(self, name: str, cx: _Ctx | None = None) -> str:
        r = self.resolve(name)
        if r in self.graph.values:
            return r
        if r in self.consts:
            self.add_param(r, self.consts[r])
            return r
        where = cx.where if cx else f"graph {self.graph.name!r}"
        if r in self.dropped:
            raise FrontendError(f"{where}: input {name!r} is {self.dropped[r]}")
        raise FrontendError(
            f"{where}: input {name!r} is not defined (not a graph input, initializer or output "
            "of an earlier node)"
        )

    def shape(self, name: str, cx: _Ctx) -> tuple[int, ...]:
        arr = self.const(name)
        return tuple(arr.shape) if arr is not None else self.graph.shape(self.graph_value(name, cx))

    @property
    def onnx_types(self) -> dict[str, int]:
        """ONNX element types by value name, inferred on first use (few models need it)."""
        if self._onnx_types is None:
            self._onnx_types = _value_types(self.proto)
        return self._onnx_types

    def is_int(self, name: str, cx: _Ctx) -> bool:
        """Whether ONNX value `name` holds integers (or booleans), whatever its run-time
        representation (integers computed at run time are float32 values)."""
        if np.dtype(self.dtype(name, cx)).kind in "biu":
            return True
        elem = self.onnx_types.get(name)
        return elem is not None and np.dtype(validate.elem_dtype(elem) or "float32").kind in "biu"

    def logical_dtype(self, name: str, cx: _Ctx) -> str:
        """The ONNX element type of `name` (a float32 value may hold integers)."""
        elem = self.onnx_types.get(name)
        found = validate.elem_dtype(elem) if elem is not None else None
        return str(found) if found is not None else self.dtype(name, cx)

    def dtype(self, name: str, cx: _Ctx) -> str:
        arr = self.const(name)
        return (
            str(arr.dtype)
            if arr is not None
            else self.graph.value(self.graph_value(name, cx)).dtype
        )

    # -- nodes
    def import_node(self, index: int, node: onnx.NodeProto) -> None:
        cx = _Ctx(self, node, self.node_name(index, node))
        op = node.op_type
        known = op in HANDLERS or op in FOLD_ONLY
        if node.domain not in ("", "ai.onnx") or not known:
            domain = f" in domain {node.domain!r}" if node.domain else ""
            raise cx.fail(f"unsupported op{domain}; supported: {', '.join(SUPPORTED_OPS)}")
        if op == "Cast":
            _cast_to(cx)
        if op not in NO_FOLD and all(self.const(i) is not None for i in node.input if i):
            self.fold(cx)
        elif op in HANDLERS:
            HANDLERS[op](cx)
        else:
            runtime = [i for i in node.input if i and self.const(i) is None]
            raise cx.fail(
                f"supported only on constant inputs (folded at import), but {runtime[0]!r} is "
                "computed at run time"
            )

    def fold(self, cx: _Ctx) -> None:
        """Evaluate a node on constant inputs with the ONNX reference evaluator (numpy)."""
        node = cx.node
        ins = list(dict.fromkeys(i for i in node.input if i))
        outs = [o for o in node.output if o]
        feeds = {i: self.const(i) for i in ins}
        try:  # sized before it is evaluated: a few bytes can ask for gigabytes
            predicted = predict_outputs(node, feeds, self.opset)
        except ValueError as err:
            raise cx.fail(f"constant folding failed: {err}") from None
        for o, (shape, dtype) in zip(outs, predicted, strict=True):
            if shape is not None:
                self.check_fold_size(cx, o, shape, dtype)
        fn = helper.make_function(
            "tunefarm.fold", "fold", ins, outs, [node], [helper.make_opsetid("", self.opset)]
        )
        try:
            results = ReferenceEvaluator(fn).run(None, feeds, {})
        except Exception as err:
            raise cx.fail(f"constant folding failed: {type(err).__name__}: {err}") from None
        for o, value in zip(outs, results, strict=True):
            value = np.asarray(value)
            self.check_fold_size(cx, o, value.shape, value.dtype)
            self.consts[o] = value

    def check_fold_size(self, cx: _Ctx, out: str, shape: Sequence[int], dtype: Any) -> None:
        """Folded constants may be empty (an empty axes list) but not above the budget."""
        reason = over_budget(f"folded output {out!r}", shape, dtype, self.limit)
        if reason:
            raise cx.fail(reason)

    # -- inputs and outputs
    def add_inputs(self, input_shapes: Mapping[str, Sequence[int]] | None) -> None:
        runtime = [vi for vi in self.proto.graph.input if vi.name not in self.consts]
        names = [vi.name for vi in runtime]
        unknown = [n for n in (input_shapes or {}) if n not in names]
        if unknown:
            raise FrontendError(
                f"{self.label}: input_shapes names unknown input(s) {unknown}; "
                f"the model's inputs are {names}"
            )
        named = _named_dims(runtime, input_shapes or {})
        for vi in runtime:
            given = (input_shapes or {}).get(vi.name) or _by_name(vi, named)
            shape = _input_shape(self.label, vi, given)
            dtype = INPUT_DTYPES[vi.type.tensor_type.elem_type]
            self.check_size(None, f"input {vi.name!r}", shape, dtype)
            value = Value(vi.name, shape, dtype)
            self.graph.inputs.append(value)
            self.graph.values[vi.name] = value

    def add_outputs(self) -> None:
        """The ONNX outputs by name; one listed twice is one graph output (runs return outputs
        by name, and ONNX Runtime gives the same tensor under both positions)."""
        names = list(dict.fromkeys(o.name for o in self.proto.graph.output))
        self.integer_outputs()
        produced = {o for n in self.graph.nodes for o in n.outputs}
        renames: dict[str, str] = {}
        for name in names:
            self.graph.outputs.append(self.output_value(name, produced, set(names), renames))
        if renames:
            self.rename(renames)
        for name in self.graph.outputs:
            v = self.graph.value(name)
            self.check_size(None, f"output {name!r}", v.shape, v.dtype)
            if v.dtype not in ("float32", "int32", "int64"):
                raise FrontendError(
                    f"{self.label}: output {name!r} is {v.dtype}; only float32, int32 and int64 "
                    "outputs are computed"
                )

    def integer_outputs(self) -> None:
        """An int32/int64 ONNX output computed as a float32 value (run-time integers are
        float32 values) gets one cast node back to its integer type."""
        for o in self.proto.graph.output:
            dtype = validate.elem_dtype(o.type.tensor_type.elem_type)
            if dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
                continue
            r = self.graph_value(o.name)
            if self.graph.value(r).dtype != "float32":
                continue
            if r == o.name:  # the float value takes another name; the cast takes o.name
                r = self.fresh(f"{o.name}/float")
                self.rename({o.name: r})
            self.alias.pop(o.name, None)
            cast = Node(self.fresh(f"{o.name}/int"), "cast", [r], [o.name], {"dtype": str(dtype)})
            self.graph.values[o.name] = infer_node(self.graph, cast)[0]
            self.graph.nodes.append(cast)

    def output_value(
        self, name: str, produced: set[str], onnx_outputs: set[str], renames: dict[str, str]
    ) -> str:
        """The graph value for ONNX output `name`: renamed (collected in `renames`) or copied
        so it keeps that name."""
        r = self.graph_value(name)
        if r == name:
            return name
        if r in produced and r not in onnx_outputs and r not in renames:
            renames[r] = name  # rename, unless r must keep its own name
            return name
        copy = Node(
            self.fresh(f"{name}/copy"), "reshape", [r], [name], {"shape": list(self.graph.shape(r))}
        )
        self.graph.values[name] = infer_node(self.graph, copy)[0]
        self.graph.nodes.append(copy)
        return name

    def rename(self, renames: dict[str, str]) -> None:
        """Rename graph values old -> new in one pass over the nodes."""
        for n in self.graph.nodes:
            n.inputs = [renames.get(i, i) for i in n.inputs]
            n.outputs = [renames.get(o, o) for o in n.outputs]
        for old, new in renames.items():
            v = self.graph.values.pop(old)
            self.graph.values[new] = Value(new, v.shape, v.dtype)
            self.alias.pop(new, None)
            self.alias[old] = new


def _value_types(proto: onnx.ModelProto) -> dict[str, int]:
    """ONNX element types of the graph's values (from ONNX shape inference; empty where it
    fails): run-time integers are float32 values here, but integer Div still truncates."""
    g = proto.graph
    listed = {vi.name for vi in g.input}
    weights = [  # initializers as typed inputs: inference needs their types, not their bytes
        helper.make_tensor_value_info(t.name, t.data_type, list(t.dims))
        for t in g.initializer
        if t.name not in listed
    ]
    light = helper.make_graph(
        list(g.node), g.name, [*g.input, *weights], list(g.output), value_info=list(g.value_info)
    )
    model = helper.make_model(light, opset_imports=list(proto.opset_import))
    model.ir_version = proto.ir_version
    model.functions.extend(proto.functions)
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception:  # inference is advisory; the import checks every op itself
        return {}
    g = inferred.graph
    return {
        vi.name: vi.type.tensor_type.elem_type
        for vi in (*g.value_info, *g.output, *g.input)
        if vi.type.HasField("tensor_type")
    }


def _input_shape(label: str, vi: onnx.ValueInfoProto, given: Sequence[int] | None) -> tuple:
    """Static shape of runtime input `vi` (float32, or int64/int32/bool ids and masks), `given`
    filling dynamic dims."""
    name = vi.name
    if not vi.type.HasField("tensor_type"):
        raise FrontendError(f"{label}: input {name!r} is not a tensor")
    tt = vi.type.tensor_type
    if tt.elem_type not in INPUT_DTYPES:
        dtype = validate.elem_dtype(tt.elem_type) or f"{tt.elem_type} (undefined)"
        raise FrontendError(
            f"{label}: input {name!r} has element type {dtype}; only float32, int64, int32 and "
            "bool inputs are supported"
        )
    dims: list[int | str | None] | None = None
    if tt.HasField("shape"):
        dims = [
            d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in tt.shape.dim
        ]
    if given is not None:
        return _given_shape(label, name, dims, given)
    example = ",".join(str(d) if isinstance(d, int) else "1" for d in (dims or [1, 3, 224, 224]))
    hint = f"pass --input-shape {name}:{example} (input_shapes={{{name!r}: [...]}} in Python)"
    if dims is None:
        raise FrontendError(f"{label}: input {name!r} has no static shape (rank unknown); {hint}")
    for i, d in enumerate(dims):
        if not isinstance(d, int):
            what = f"{d!r}" if d else "unknown"
            raise FrontendError(f"{label}: input {name!r} dim {i} ({what}) is dynamic; {hint}")
        if d < 1:
            raise FrontendError(
                f"{label}: input {name!r} dim {i} is {d} in shape {dims}; dims must be >= 1 "
                "(zero-size tensors are not supported)"
            )
    return tuple(int(d) for d in dims)  # type: ignore[arg-type]


def _dims(vi: onnx.ValueInfoProto) -> list[int | str | None] | None:
    tt = vi.type.tensor_type
    if not vi.type.HasField("tensor_type") or not tt.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in tt.shape.dim]


def _named_dims(
    runtime: Sequence[onnx.ValueInfoProto], input_shapes: Mapping[str, Sequence[int]]
) -> dict[str, int]:
    """Sizes of named dynamic dims ("batch", "sequence") read off the inputs given in
    input_shapes, so that one `--input-shape input_ids:1,128` also fixes attention_mask and
    token_type_ids when the export names their dims alike."""
    named: dict[str, int] = {}
    for vi in runtime:
        dims, given = _dims(vi), input_shapes.get(vi.name)
        if dims is None or given is None or len(dims) != len(given):
            continue
        for d, g in zip(dims, given, strict=True):
            if isinstance(d, str):
                named.setdefault(d, int(g))
    return named


def _by_name(vi: onnx.ValueInfoProto, named: Mapping[str, int]) -> list[int] | None:
    """The shape of `vi` when its every dynamic dim is a name in `named`, else None."""
    dims = _dims(vi)
    if not dims or not any(isinstance(d, str) for d in dims):
        return None
    if any(d is None or (isinstance(d, str) and d not in named) for d in dims):
        return None
    return [named[d] if isinstance(d, str) else int(d) for d in dims]


def _given_shape(label: str, name: str, dims: list | None, given: Sequence[int]) -> tuple:
    shape = tuple(int(d) for d in given)
    if any(d < 1 for d in shape):
        raise FrontendError(f"{label}: input_shapes[{name!r}] = {list(shape)} must be positive")
    if dims is not None:
        if len(dims) != len(shape):
            raise FrontendError(
                f"{label}: input {name!r} has rank {len(dims)}, but input_shapes gives "
                f"{list(shape)}"
            )
        for i, (d, s) in enumerate(zip(dims, shape, strict=True)):
            if isinstance(d, int) and d != s:
                raise FrontendError(
                    f"{label}: input {name!r} dim {i} is {d} in the model, but input_shapes "
                    f"gives {s}"
                )
    return shape


# ---------------------------------------------------------------- entry point
def load_onnx(
    model: str | os.PathLike | bytes | onnx.ModelProto,
    input_shapes: Mapping[str, Sequence[int]] | None = None,
    name: str | None = None,
    max_tensor_bytes: int | None = None,
) -> Graph:
    """Import an ONNX model (path, serialized bytes or ModelProto) into the graph IR.

    input_shapes: static shapes for runtime inputs (required for inputs with dynamic dims).
    name: the graph's name (default: the ONNX graph name, or the file's stem).
    max_tensor_bytes: the most bytes one tensor may take (inputs, initializers, folded
    constants, graph values), checked before it is allocated; default: the environment's
    TUNEFARM_MAX_TENSOR_BYTES or 1 GiB (see `tunefarm.frontend.limits`).
    Raises FrontendError naming the file, input or node for anything not supported. External
    data is read only for a model given as a path (from the model's directory).
    """
    limit = _budget(max_tensor_bytes)
    proto, label = read_model(model, limit)
    opset = _check(proto, label)
    default = Path(label).stem if isinstance(model, str | os.PathLike) else "model"
    imp = _Importer(proto, label, opset, name or proto.graph.name or default, limit)
    imp.add_inputs(input_shapes)
    for index, node in enumerate(proto.graph.node):
        try:
            imp.import_node(index, node)
        except GraphError:
            raise
        except Exception as err:  # a bug of ours: still one line that names the node
            where = f"node {node.name or f'#{index}'!r} ({node.op_type})"
            msg = " ".join(f"{type(err).__name__}: {err}".split())
            raise FrontendError(f"{where}: internal error while importing: {msg}") from err
    imp.add_outputs()
    graph = infer_shapes(imp.graph)
    graph.check()
    return graph
