"""Graph IR: values, nodes and the graph that holds them.

Why our own IR rather than ONNX protos: passes need a small, normalised op set (one conv op
with explicit 4-sided padding, one pool op, no opset differences, no dynamic shapes), values
whose shapes and dtypes are always known, and a JSON form that services can pass around.

Op set (logical NCHW layout for 4-D activations, OIHW weights; `attrs` as listed):
  conv2d          [data, weight, (bias)]  strides(2) padding(4: top,left,bottom,right)
                                          dilation(2) groups  (+ epilogue after fusion)
  dense           [data (N,K), weight (O,K), (bias (O,))]     (+ epilogue after fusion)
  matmul          [a, b]                  numpy matmul semantics (batched, broadcast)
  batch_norm      [data, scale, bias, mean, var]  epsilon
  relu sigmoid silu hard_swish            []
  leaky_relu      alpha;  clip  lo hi;  hard_sigmoid  alpha beta
  add sub mul div [a, b]                  numpy broadcasting
  channel_affine  [x.., scale, shift]     relu  x * scale + shift (then max(., 0) if relu),
                                          several xs concatenated on axis 1 first; scale,
                                          shift [1, C, 1, ...] (CPU only: made by
                                          `graph.passes.channel_affine` in `for_target`)
  lrn             size alpha beta bias
  pool2d          kind("max"|"avg") kernel(2) strides(2) padding(4) dilation(2)
                  ceil_mode count_include_pad
  global_pool2d   kind("max"|"avg")
  reshape         shape (static, fully resolved)
  transpose       perm
  concat          axis
  split           axis sizes               (several outputs)
  pad             pads (2*rank: all begins then all ends, as ONNX) value (constant mode)
  softmax         axis
  reduce_mean     axes keepdims
  layout_transform src dst                 (inserted by the layout pass)
  erf tanh sqrt square gelu               []  (square: ONNX Pow with exponent 2;
                                          gelu: x * 0.5 * (1 + erf(x / sqrt 2)))
  equal           [a, b]                  1.0 where a == b else 0.0 (broadcasting)
  where           [cond, a, b]            a where cond != 0 else b (broadcasting)
  cast            dtype                   int inputs to float32 (booleans are float 0/1)
  gather          [data, indices (int)]   axis  (embedding lookup; indices clamped)
  expand          shape                   numpy broadcast to `shape` (static)
  slice           axis begin end          x[..., begin:end, ...] on one axis (step 1)
  layer_norm      [x, gamma, (beta)]      axis epsilon  (statistics over axis..end)
  attention       [q, k, v, (mask)]       scale k_layout  softmax(q K^T scale + mask) v,
                                          4-D [B, H, S, D]; k is K^T ("BHDS") or K ("BHSD")
  quantize dequantize qconv2d qadd        int8 ops: see `tunefarm.graph.quant_ops`
  conv2d_packed int8_add                  accelerator-packed ops: `tunefarm.graph.packed_ops`
Params (weights, constants) are numpy arrays keyed by value name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

OPS = (
    "conv2d",
    "dense",
    "matmul",
    "batch_norm",
    "relu",
    "sigmoid",
    "silu",
    "hard_swish",
    "leaky_relu",
    "clip",
    "hard_sigmoid",
    "add",
    "sub",
    "mul",
    "div",
    "channel_affine",
    "lrn",
    "pool2d",
    "global_pool2d",
    "reshape",
    "transpose",
    "concat",
    "split",
    "pad",
    "softmax",
    "reduce_mean",
    "layout_transform",
    # transformer ops
    "erf",
    "tanh",
    "sqrt",
    "square",
    "gelu",
    "equal",
    "where",
    "cast",
    "gather",
    "expand",
    "slice",
    "layer_norm",
    "attention",
    # quantized ops (rules and kernels in `tunefarm.graph.quant_ops`)
    "quantize",
    "dequantize",
    "qconv2d",
    "qadd",
    # ops of a network packed for an accelerator (`tunefarm.graph.packed_ops`)
    "conv2d_packed",
    "int8_add",
)


class GraphError(ValueError):
    """A graph that is not well formed or a node whose inputs or attrs are invalid; the
    message names the node and op."""


@dataclass(frozen=True)
class Value:
    """A named tensor value with a static shape and dtype."""

    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "shape": list(self.shape), "dtype": self.dtype}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Value:
        return cls(d["name"], tuple(int(v) for v in d["shape"]), d.get("dtype", "float32"))


@dataclass
class Node:
    """One op application. `name` is unique in the graph (the ONNX node name, or made up)."""

    name: str
    op: str
    inputs: list[str]
    outputs: list[str]
    attrs: dict[str, Any] = field(default_factory=dict)

    def where(self) -> str:
        """How error messages name the node."""
        return f"node {self.name!r} ({self.op})"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "op": self.op,
            "inputs": list(self.inputs),
            "outputs": list(self.outputs),
            "attrs": _jsonable(self.attrs),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Node:
        return cls(d["name"], d["op"], list(d["inputs"]), list(d["outputs"]), dict(d["attrs"]))


def fresh_name(base: str, taken: set[str]) -> str:
    """`base`, or `base_1`, `base_2`, ...: the first that is not in `taken`, which it then
    joins (the importers' and exporters' names for the values and nodes they make)."""
    name, i = base, 1
    while name in taken:
        name, i = f"{base}_{i}", i + 1
    taken.add(name)
    return name


@dataclass
class Graph:
    """Nodes in topological order, the values they read and write, and constant params.

    inputs: the network's runtime inputs (not params); outputs: names of output values;
    values: shape and dtype of every value (inputs, params, node outputs).
    """

    name: str
    inputs: list[Value]
    outputs: list[str]
    nodes: list[Node]
    params: dict[str, np.ndarray]
    values: dict[str, Value]
    # names handed out by unique_name (plus the node names when first asked), so that a pass
    # adding a param per node stays linear; rebuilt by each copy
    _taken: set[str] | None = field(default=None, init=False, repr=False, compare=False)

    # -- queries -------------------------------------------------------------------------
    def value(self, name: str) -> Value:
        try:
            return self.values[name]
        except KeyError:
            raise GraphError(f"graph {self.name!r}: no value named {name!r}") from None

    def shape(self, name: str) -> tuple[int, ...]:
        return self.value(name).shape

    def producers(self) -> dict[str, Node]:
        return {out: n for n in self.nodes for out in n.outputs}

    def consumers(self) -> dict[str, list[Node]]:
        table: dict[str, list[Node]] = {}
        for n in self.nodes:
            for i in n.inputs:
                table.setdefault(i, []).append(n)
        return table

    def is_param(self, name: str) -> bool:
        return name in self.params

    def op_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for n in self.nodes:
            counts[n.op] = counts.get(n.op, 0) + 1
        return counts

    # -- building ------------------------------------------------------------------------
    def unique_name(self, base: str) -> str:
        """`base`, or `base_1`, `base_2`, ...: a name no value, node or earlier unique_name
        result has."""
        if self._taken is None:
            self._taken = {n.name for n in self.nodes}
        taken, values = self._taken, self.values
        name, i = base, 0
        while name in taken or name in values:
            i += 1
            name = f"{base}_{i}"
        taken.add(name)
        return name

    def add_param(self, base: str, array: np.ndarray) -> str:
        name = self.unique_name(base)
        array = np.ascontiguousarray(array)
        self.params[name] = array
        self.values[name] = Value(name, tuple(array.shape), str(array.dtype))
        return name

    def copy(self) -> Graph:
        """A copy whose node list, nodes and tables can be changed freely (params shared,
        since passes replace params rather than modify them in place)."""
        return Graph(
            self.name,
            list(self.inputs),
            list(self.outputs),
            [
                Node(n.name, n.op, list(n.inputs), list(n.outputs), dict(n.attrs))
                for n in self.nodes
            ],
            dict(self.params),
            dict(self.values),
        )

    def check(self) -> None:
        """Raise GraphError unless every node reads defined values in topological order and
        every output is defined."""
        defined = {v.name for v in self.inputs} | set(self.params)
        for n in self.nodes:
            if n.op not in OPS:
                raise GraphError(f"{n.where()}: unknown op; graph ops are {', '.join(OPS)}")
            for i in n.inputs:
                if i not in defined:
                    raise GraphError(f"{n.where()}: input {i!r} is not defined before it")
            for o in n.outputs:
                if o not in self.values:
                    raise GraphError(f"{n.where()}: output {o!r} has no shape/dtype")
            defined.update(n.outputs)
        for o in self.outputs:
            if o not in defined:
                raise GraphError(f"graph {self.name!r}: output {o!r} is never computed")

    # -- serialisation -------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """Structure only; params go separately (see `save`)."""
        return {
            "name": self.name,
            "inputs": [v.to_json() for v in self.inputs],
            "outputs": list(self.outputs),
            "nodes": [n.to_json() for n in self.nodes],
            "values": [v.to_json() for v in self.values.values()],
            "params": sorted(self.params),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any], params: dict[str, np.ndarray]) -> Graph:
        missing = [p for p in d.get("params", []) if p not in params]
        if missing:
            raise GraphError(f"graph {d.get('name')!r}: params missing: {missing[:5]}")
        return cls(
            d["name"],
            [Value.from_json(v) for v in d["inputs"]],
            list(d["outputs"]),
            [Node.from_json(n) for n in d["nodes"]],
            dict(params),
            {v["name"]: Value.from_json(v) for v in d["values"]},
        )

    def save(self, path: str) -> None:
        """One .npz holding the params and the structure (as JSON under `__graph__`)."""
        arrays = dict(self.params)
        arrays["__graph__"] = np.frombuffer(json.dumps(self.to_json()).encode(), dtype=np.uint8)
        np.savez(path, **arrays)

    @classmethod
    def load(cls, path: str) -> Graph:
        with np.load(path, allow_pickle=False) as z:
            structure = json.loads(bytes(z["__graph__"]).decode())
            params = {k: z[k] for k in z.files if k != "__graph__"}
        return cls.from_json(structure, params)

    def summary(self) -> str:
        ops = ", ".join(f"{op} x{c}" for op, c in sorted(self.op_counts().items()))
        ins = ", ".join(f"{v.name}{list(v.shape)}" for v in self.inputs)
        return f"{self.name}: inputs {ins}; {len(self.nodes)} nodes ({ops})"


def _jsonable(attrs: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in attrs.items():
        if isinstance(v, tuple):
            v = list(v)
        elif isinstance(v, np.generic):
            v = v.item()
        out[k] = v
    return out


def input_ranges(graph: Graph) -> dict[str, tuple[int, int]]:
    """[lo, hi) of the values each integer input should take: token ids index the tables of
    the gathers that read them (the smallest one), other integers are 0/1 masks."""
    ranges = {}
    for v in graph.inputs:
        if np.dtype(v.dtype).kind not in "iu":
            continue
        same = {v.name}  # the input and its views (reshape, expand, slice keep the values)
        for n in graph.nodes:
            if n.op in ("reshape", "expand", "slice") and n.inputs[0] in same:
                same.add(n.outputs[0])
        sizes = [
            graph.shape(n.inputs[0])[int(n.attrs.get("axis", 0))]
            for n in graph.nodes
            if n.op == "gather" and n.inputs[1] in same
        ]
        ranges[v.name] = (0, min(sizes) if sizes else 2)
    return ranges


def random_inputs(graph: Graph, seed: int = 0) -> dict[str, np.ndarray]:
    """Seeded arrays for every runtime input of the graph (what a network is checked on
    against its reference): uniform [-1, 1) floats, integers in `input_ranges`."""
    rng = np.random.default_rng(seed)
    ranges = input_ranges(graph)
    out = {}
    for v in graph.inputs:
        if v.name in ranges:
            lo, hi = ranges[v.name]
            out[v.name] = rng.integers(lo, hi, size=v.shape).astype(v.dtype)
        else:
            out[v.name] = rng.uniform(-1.0, 1.0, size=v.shape).astype(v.dtype)
    return out
