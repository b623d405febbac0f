"""GPU templates of one output element per thread, for ops without a tiled template:
batch_matmul, matmul, elementwise (unary and broadcasting binary), softmax and reduce_mean
(the sketch policy finds their cross-thread schedules); `graph_ops` adds the light ops
between a network's anchors with the same schedule.

The schedule is `pool.thread_steps`: the output's axes fused and split over blocks of
`threads`, elementwise intermediates inlined, reductions in registers per thread. Correct on
any shape; the fast tiled schedules are conv2d's and dense's.

Knobs: threads, auto_unroll_max_step.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tunefarm.backends.gpu_common.pool import _space, thread_steps
from tunefarm.ir import reference as R
from tunefarm.ir import tensor as te
from tunefarm.ir.ops import elementwise as E
from tunefarm.ir.ops.dense import batch_matmul, matmul
from tunefarm.ir.ops.reduction import reduce_mean
from tunefarm.ir.ops.softmax import softmax
from tunefarm.ir.tensor import Tensor
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import InputSpec, KernelDef, Template, check_config, io_key
from tunefarm.target import Target
from tunefarm.task import Task, TaskError

UNARY = {
    "relu": R.relu,
    "sigmoid": R.sigmoid,
    "hard_swish": R.hard_swish,
    "silu": R.silu,
    "hard_sigmoid": R.hard_sigmoid,
    "leaky_relu": R.leaky_relu,
    "clip": R.clip,
    "cast": R.cast,
    "erf": R.erf,
    "tanh": R.tanh,
    "sqrt": R.sqrt,
    "square": R.square,
    "gelu": R.gelu,
}
BINARY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
          "divide": np.divide, "maximum": np.maximum, "minimum": np.minimum,
          "equal": R.equal}  # fmt: skip
# the float attrs of a unary fn and their defaults (the network compiler passes them)
ATTRS = {"clip": {"lo": 0.0, "hi": 6.0}, "leaky_relu": {"alpha": 0.01},
         "hard_sigmoid": {"alpha": 0.2, "beta": 0.5}}  # fmt: skip
# dtypes a GPU tensor may hold: int64 are bert's ids and the casts of its masks
DTYPES = ("float32", "int32", "int64")
INPUT_DTYPES = (*DTYPES, "bool")  # a bool graph input, cast to a float mask


def _shape(task: Task, key: str) -> tuple[int, ...]:
    try:
        shape = tuple(int(v) for v in task.args[key])
    except KeyError:
        raise TaskError(f"{task.op}: missing param {key!r}") from None
    except (TypeError, ValueError):
        raise TaskError(f"{task.op}: param {key!r} must be a list of ints") from None
    if not shape or min(shape) < 1:
        raise TaskError(f"{task.op}: param {key!r} must be a non-empty shape of positive ints")
    return shape


def _ew_fn(task: Task) -> str:
    fn = task.args.get("fn")
    if fn not in UNARY | BINARY:
        known = sorted(UNARY | BINARY)
        raise TaskError(f"elementwise on a GPU: fn must be one of {known}, got {fn!r}")
    shapes = task.args.get("shapes") or ()
    if len(shapes) != (1 if fn in UNARY else 2):
        raise TaskError(f"elementwise: fn {fn!r} takes {1 if fn in UNARY else 2} shape(s)")
    return fn


def _ew_inputs(task: Task) -> list[tuple[str, tuple[int, ...]]]:
    _ew_fn(task)
    return [(f"x{i}", tuple(int(v) for v in s)) for i, s in enumerate(task.args["shapes"])]


def _ew_attrs(task: Task, fn: str) -> dict[str, Any]:
    if fn == "cast":
        dtype = task.args.get("dtype", "float32")
        if dtype not in DTYPES:
            raise TaskError(
                f"elementwise cast: param 'dtype' must be one of {DTYPES}, got {dtype!r}"
            )
        return {"dtype": dtype}
    out = {}
    for key, default in ATTRS.get(fn, {}).items():
        value = task.args.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TaskError(f"elementwise {fn}: param {key!r} must be a number, got {value!r}")
        out[key] = float(value)
    return out


def _ew_specs(task: Task) -> dict[str, InputSpec]:
    """Inputs of `dtypes` (one per input, optional: a cast's int64 source) draw small ints;
    equal's operands draw {0, 1, 2} so that both outcomes occur; sqrt's are >= 0."""
    dtypes = task.args.get("dtypes") or []
    if not isinstance(dtypes, list | tuple):
        raise TaskError(
            f"elementwise: param 'dtypes' must be a list of dtype names, got {dtypes!r}"
        )
    out: dict[str, InputSpec] = {}
    for i, d in enumerate(dtypes):
        if d not in INPUT_DTYPES:
            raise TaskError(f"elementwise: dtypes[{i}] must be one of {INPUT_DTYPES}, got {d!r}")
        if d == "bool":
            out[f"x{i}"] = InputSpec(d, 0, 1)
        elif d != "float32":
            out[f"x{i}"] = InputSpec(d, -3, 3)
    fn = task.args.get("fn")
    if fn == "sqrt":
        out.setdefault("x0", InputSpec("float32", 0.0, 4.0))
    if fn == "equal":
        for i in range(2):
            out.setdefault(f"x{i}", SmallInts("float32", 0, 2))
    return out


def _ew_build(task: Task, xs: list[Tensor]) -> Tensor:
    fn = _ew_fn(task)
    try:
        return getattr(E, fn)(*xs, **_ew_attrs(task, fn), name="out")
    except ValueError as exc:
        raise TaskError(f"elementwise {fn}: {exc}") from None


def _ew_ref(task: Task, xs: list[np.ndarray]) -> np.ndarray:
    fn = _ew_fn(task)
    attrs = _ew_attrs(task, fn)
    out = UNARY[fn](xs[0], **attrs) if fn in UNARY else BINARY[fn](xs[0], xs[1])
    return np.asarray(out, dtype=attrs.get("dtype", np.float32))


@dataclass(frozen=True)
class SmallInts(InputSpec):
    """Float tensors holding small integers (0/1 masks, equal's operands), so that a select
    takes both branches when checked."""

    def draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        ints = rng.integers(int(self.lo), int(self.hi), size=shape, endpoint=True)
        return ints.astype(self.dtype)


@dataclass(frozen=True)
class Spec:
    op: str
    inputs: Callable[[Task], list[tuple[str, tuple[int, ...]]]]
    build: Callable[[Task, list[Tensor]], Tensor]
    reference: Callable[[Task, list[np.ndarray]], np.ndarray]
    flops: Callable[[Task, tuple[int, ...]], float]
    # dtype and value range of inputs that are not float32 in [-1, 1) (int indices, masks)
    specs: Callable[[Task], dict[str, InputSpec]] = lambda t: {}
    # ops with per-row statistics (softmax, layer_norm): how many leading output axes index
    # a row; they get a `rows` knob (one thread per row, the row's statistics computed once)
    rows: Callable[[Task], int] | None = None


def _keepdims(task: Task) -> bool:
    value = task.args.get("keepdims", True)
    if value not in (True, False):  # also 1 / 0, as ONNX writes it
        raise TaskError(f"{task.op}: param 'keepdims' must be a bool, got {value!r}")
    return bool(value)


def _transpose_b(task: Task) -> bool:
    return bool(task.args.get("transpose_b", False))


SPECS = [
    Spec(
        "batch_matmul",
        lambda t: [("a", _shape(t, "a")), ("b", _shape(t, "b"))],
        lambda t, xs: batch_matmul(xs[0], xs[1], _transpose_b(t), name="out"),
        lambda t, xs: R.batch_matmul(xs[0], xs[1], _transpose_b(t)),
        lambda t, o: 2.0 * math.prod(o) * _shape(t, "a")[-1],
    ),
    Spec(
        "matmul",
        lambda t: [("a", _shape(t, "a")), ("b", _shape(t, "b"))],
        lambda t, xs: matmul(xs[0], xs[1], name="out"),
        lambda t, xs: R.matmul(xs[0], xs[1]),
        lambda t, o: 2.0 * math.prod(o) * _shape(t, "a")[-1],
    ),
    Spec(
        "elementwise",
        _ew_inputs,
        _ew_build,
        _ew_ref,
        lambda t, o: float(math.prod(o)),
        _ew_specs,
    ),
    Spec(
        "softmax",
        lambda t: [("x", _shape(t, "shape"))],
        lambda t, xs: softmax(xs[0], int(t.args.get("axis", -1)), name="out"),
        lambda t, xs: R.softmax(xs[0], int(t.args.get("axis", -1))),
        lambda t, o: 4.0 * math.prod(o),
        rows=lambda t: int(t.args.get("axis", -1)) % len(_shape(t, "shape")),
    ),
    Spec(
        "reduce_mean",
        lambda t: [("x", _shape(t, "shape"))],
        lambda t, xs: reduce_mean(xs[0], t.args.get("axes"), _keepdims(t), name="out"),
        # a full reduction without keepdims is 0-d in numpy; the kernel writes shape (1,)
        lambda t, xs: np.atleast_1d(R.reduce_mean(xs[0], t.args.get("axes"), _keepdims(t))),
        lambda t, o: float(math.prod(_shape(t, "shape"))),
    ),
]


def row_steps(dag: te.ComputeDAG, lead: int, threads: int, unroll: int) -> list[S.Step]:
    """`pool.thread_steps` with only the `lead` row axes fused over threads: each thread
    loops over its row and computes the row's reductions once, at the thread loop."""
    out = dag.outputs[0]
    names = tuple(a.name for a in out.op.axes)[:lead]  # type: ignore[union-attr]
    fused = "+".join(names)
    steps: list[S.Step] = [S.Fuse(out.name, names)] if len(names) > 1 else []
    steps.append(S.Split(out.name, fused, (threads,)))
    steps += [S.Bind(out.name, f"{fused}.0", "blockIdx.x")]
    steps += [S.Bind(out.name, f"{fused}.1", "threadIdx.x")]
    reducer = None
    for t in dag.compute_stages:
        if t is out:
            continue
        if t.op.reduce_axes:  # type: ignore[union-attr]
            steps.append(S.ComputeAt(t.name, out.name, f"{fused}.1"))
            reducer = t.name
        else:
            steps.append(S.ComputeInline(t.name))
    if unroll and reducer is not None:
        first = dag.by_name[reducer].op.reduce_axes[0].name  # type: ignore[union-attr]
        steps.append(S.Pragma(reducer, first, "auto_unroll_max_step", unroll))
    return steps


class ThreadPerOutput(Template):
    """One op of `SPECS` with the thread-per-output schedule."""

    generic = True  # the fallback: `--policy auto` searches sketches for these ops

    def __init__(self, spec: Spec) -> None:
        self.spec, self.op = spec, spec.op

    def _dag(self, task: Task) -> te.ComputeDAG:
        specs = self.spec.specs(task)
        xs = [
            te.placeholder(shape, specs[name].dtype if name in specs else "float32", name=name)
            for name, shape in self.spec.inputs(task)
        ]
        try:
            out = self.spec.build(task, xs)
        except ValueError as exc:
            raise TaskError(f"{task.op}: {exc}") from None
        return te.ComputeDAG([out], xs)

    def validate(self, task: Task) -> dict[str, Any]:
        return {"out": self._dag(task).outputs[0].shape}

    def logical_inputs(self, task):
        return self.spec.inputs(task)

    def input_specs(self, task):
        return self.spec.specs(task)

    def reference(self, task, inputs):
        return self.spec.reference(task, list(inputs.values()))

    def flops(self, task):
        return self.spec.flops(task, self.validate(task)["out"])

    def _lead(self, task: Task) -> int:
        """Leading output axes that index a row (0: the op has no `rows` knob)."""
        return self.spec.rows(task) if self.spec.rows is not None else 0

    def space(self, task: Task, target: Target) -> ConfigSpace:
        sp = _space(math.prod(self.validate(task)["out"]))
        if self._lead(task):
            sp.define_knob("rows", [False, True])
        return sp

    def preferred(self, task, space, target):
        threads = space.knobs["threads"].entities
        cfg = {"threads": max(threads), "auto_unroll_max_step": 0}
        if "rows" in space.knobs and target.kind == "opencl":
            # pocl runs work-items as CPU loop iterations: a row's statistics recomputed
            # per element cost the row's length over again (softmax was 63% of bert-tiny);
            # >= 4 work-groups keep pocl's cores busy. CUDA keeps one thread per output
            # until a GPU measures the two.
            n = math.prod(self.validate(task)["out"][: self._lead(task)])
            fits = [t for t in threads if n >= 4 * t]
            cfg.update(rows=True, threads=max(fits) if fits else min(threads))
        return cfg

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        cfg = check_config(self.space(task, target), config, task.op)
        dag = self._dag(task)
        if cfg.get("rows"):
            steps = row_steps(dag, self._lead(task), cfg["threads"], cfg["auto_unroll_max_step"])
        else:
            steps = thread_steps(dag, cfg["threads"], cfg["auto_unroll_max_step"])
        n = len(dag.inputs)
        return KernelDef(
            dag.inputs, dag.outputs, steps, [np.ascontiguousarray] * n, np.ascontiguousarray,
            io_key(task, layout="logical"),
        )  # fmt: skip


TEMPLATES = [ThreadPerOutput(s) for s in SPECS]
