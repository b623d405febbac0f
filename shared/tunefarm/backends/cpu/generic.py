"""A generic template for every op without a specialised one.

Elementwise helper stages are inlined; each remaining stage runs at root with its outer
spatial axes fused and parallelised and its innermost spatial axis moved inside any
reduction and vectorised. Two knobs (parallel, vectorize) give a small space to sweep.
The ops here are defined by a build function (task -> input and output tensors), a numpy
reference, and a FLOP count.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tunefarm.backends.cpu.target import vector_lanes
from tunefarm.backends.op_specs import (
    BINARY,
    TERNARY,
    UNARY,
    Elementwise,
    Inputs,
    OpSpec,
    concat_inputs,
    concat_parts,
    int_param,
    moves,
    one_input,
    shape_param,
)
from tunefarm.backends.op_specs import SPECS as SHARED
from tunefarm.ir import layouts as L
from tunefarm.ir import reference as R
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.conv import conv2d_nchw, conv2d_nhwc
from tunefarm.ir.ops.epilogue import apply_epilogue, epilogue_inputs, reference_epilogue
from tunefarm.ir.ops.layout import layout_transform
from tunefarm.ir.ops.movement import concat
from tunefarm.ir.tensor import Tensor
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import (
    KernelDef,
    Template,
    as_padding,
    as_pair,
    check_config,
    identity,
    io_key,
)
from tunefarm.target import Target
from tunefarm.task import Task, TaskError


def _conv_attrs(task: Task):
    a = task.args
    return (
        as_pair(a.get("strides", 1), "strides"),
        as_padding(a.get("padding", 0)),
        as_pair(a.get("dilation", 1), "dilation"),
        int(a.get("groups", 1)),
    )


def _conv_inputs(layout: str, fn: Callable) -> Callable[[Task], Inputs]:
    """data, weight, and the epilogue's bias/residual (channel axis of `layout`)."""

    def inputs(t: Task) -> Inputs:
        data, weight = shape_param(t, "data"), shape_param(t, "weight")
        spec = tuple(t.args.get("epilogue", ()))
        if not spec:
            return [("data", data), ("weight", weight)]
        out = fn(te.placeholder(data), te.placeholder(weight), *_conv_attrs(t))
        channels = out.shape[layout.index("C")]
        return [("data", data), ("weight", weight), *epilogue_inputs(spec, channels, out.shape)]

    return inputs


def _conv_build(fn: Callable, layout: str) -> Callable[[Task, list[Tensor]], Tensor]:
    def build(task: Task, xs: list[Tensor]) -> Tensor:
        spec = tuple(task.args.get("epilogue", ()))
        s, p, d, g = _conv_attrs(task)
        try:
            conv = fn(xs[0], xs[1], s, p, d, g, name="conv" if spec else "out")
        except ValueError as exc:
            raise TaskError(f"{task.op}: {exc}") from None
        kinds = [k for k, _ in epilogue_inputs(spec, 1, conv.shape)]
        axis = layout.index("C")
        return apply_epilogue(
            conv, spec, lambda i: (i[axis],), dict(zip(kinds, xs[2:], strict=True)), "out"
        )

    return build


def _conv_ref(fn: Callable, layout: str) -> Callable[[Task, list[np.ndarray]], np.ndarray]:
    def ref(task: Task, xs: list[np.ndarray]) -> np.ndarray:
        s, p, d, g = _conv_attrs(task)
        spec = tuple(task.args.get("epilogue", ()))
        out = fn(xs[0], xs[1], s, p, d, g)
        kinds = [k for k, _ in epilogue_inputs(spec, 1, out.shape)]
        extra = dict(zip(kinds, xs[2:], strict=True))
        return reference_epilogue(out, spec, extra, channel_axis=layout.index("C"))

    return ref


def _conv_flops(out_shape: tuple[int, ...], weight: tuple[int, ...]) -> float:
    return 2.0 * math.prod(out_shape) * math.prod(weight) / weight[0]


def _shuffle_build(task: Task, xs: list[Tensor]) -> Tensor:
    """ShuffleNet's concat along C then channel shuffle (reshape to [N, g, C/g, H, W],
    transpose the two channel axes, reshape back) as one pass: output channel c is channel
    (c % g) * (C / g) + c // g of the concat, which the kernel inlines (and the concat's
    inputs' layout transforms, see `concat_parts`)."""
    cat = concat(concat_parts(task, xs), 1, name="cat")
    groups, channels = int_param(task, "groups"), cat.shape[1]
    if cat.ndim != 4 or groups < 2 or channels % groups:
        raise TaskError(f"{task.op}: groups {groups} must divide the {channels} channels (4-D)")
    per = channels // groups

    def body(n, c, h, w):
        return cat[n, (c % groups) * per + c // groups, h, w]

    return te.compute(cat.shape, body, name="out", tag="channel_shuffle")


def _shuffle_ref(task: Task, xs: list[np.ndarray]) -> np.ndarray:
    cat = np.concatenate(concat_parts(task, xs), axis=1)
    n, c, h, w = cat.shape
    g = int_param(task, "groups")
    return cat.reshape(n, g, c // g, h, w).transpose(0, 2, 1, 3, 4).reshape(n, c, h, w)


def _transform_ref(t: Task, xs: list[np.ndarray]) -> np.ndarray:
    """A layout transform's reference; with `channels`, of an activation held with its
    channels padded to whole blocks (`L.transform_padded`), and with `offset` of the slice
    of x's channels from there."""
    a = t.args
    if a.get("channels") is None:
        return L.transform(xs[0], a["src"], a["dst"])
    return L.transform_padded(
        xs[0], a["src"], a["dst"], int(a["channels"]), int(a.get("offset", 0))
    )


# every elementwise fn, every input dtype (float16: a Cast's value going back to float32)
ELEMENTWISE = Elementwise(
    frozenset(UNARY | BINARY | TERNARY), ("float32", "float16", "int32", "int64", "bool")
)

SPECS = [
    ELEMENTWISE.spec(),
    OpSpec(
        "group_conv2d",
        _conv_inputs("NCHW", conv2d_nchw),
        _conv_build(conv2d_nchw, "NCHW"),
        _conv_ref(R.conv2d_nchw, "NCHW"),
        lambda t, o: _conv_flops(o, shape_param(t, "weight")),
    ),
    OpSpec(
        "conv2d_nhwc",
        _conv_inputs("NHWC", conv2d_nhwc),
        _conv_build(conv2d_nhwc, "NHWC"),
        _conv_ref(R.conv2d_nhwc, "NHWC"),
        lambda t, o: 2.0 * math.prod(o) * math.prod(shape_param(t, "weight")[:3]),
    ),
    SHARED["matmul"],
    SHARED["batch_matmul"],
    SHARED["softmax"],
    OpSpec(
        "layout_transform",
        one_input,
        lambda t, xs: layout_transform(
            xs[0],
            t.args["src"],
            t.args["dst"],
            name="out",
            channels=t.args.get("channels"),
            offset=int(t.args.get("offset", 0)),
        ),
        _transform_ref,
        moves,
    ),
    SHARED["concat"],
    OpSpec("channel_shuffle", concat_inputs, _shuffle_build, _shuffle_ref, moves),
    *(SHARED[op] for op in ("slice", "pad", "transpose", "reduce_mean", "lrn", "where")),
    *(SHARED[op] for op in ("gather", "broadcast_to", "layer_norm", "copy")),
]


def generic_steps(
    out: Tensor, inputs: list[Tensor], cfg: dict[str, Any], lanes: int = 1
) -> list[S.Step]:
    """Inline elementwise helpers; root stages: fuse+parallel outer, vectorize innermost
    (a row statistic's reduction in vectors of `lanes` partial sums, `row_stat_steps`)."""
    dag = te.ComputeDAG([out], inputs)
    steps: list[S.Step] = []
    rows = cfg["vectorize"] and _softmax_rows(dag, out, lanes)
    for t in dag.compute_stages:
        op = t.op
        if rows and op.tag in ("softmax_exp", "softmax"):
            steps += softmax_row_steps(t, lanes, cfg["parallel"])
            continue
        if t is not out and not op.reduce_axes and len(dag.readers(t)) >= 1:
            steps.append(S.ComputeInline(t.name))
            continue
        if cfg["vectorize"] and _vector_row_stat(t, lanes):
            steps += row_stat_steps(t, lanes, cfg["parallel"])
            continue
        spatial = [a.name for a in op.axes]
        reduce = [a.name for a in op.reduce_axes]
        inner = spatial[-1]
        if reduce:
            steps.append(S.Reorder(t.name, (*spatial[:-1], *reduce, inner)))
        if cfg["parallel"]:
            steps += parallel_rows(t.name, spatial[:-1])
        if cfg["vectorize"]:
            steps.append(S.Vectorize(t.name, inner))
    return steps


def _vector_row_stat(t: Tensor, lanes: int) -> bool:
    """A layer norm's mean or variance, or a softmax's max or sum, whose row is whole
    vectors: its innermost spatial axis has extent 1, so vectorising it, as other stages
    are, leaves the reduction scalar."""
    op = t.op
    return (
        lanes > 1
        and op.tag in ("layer_norm_stat", "softmax_max", "softmax_sum")
        and len(op.reduce_axes) == 1
        and op.axes[-1].extent == 1
        and op.reduce_axes[0].extent % lanes == 0
    )


def _softmax_rows(dag: te.ComputeDAG, out: Tensor, lanes: int) -> bool:
    """A softmax along its last axis whose rows are longer than a vector: `softmax_row_steps`
    applies. Swin's 49-wide attention windows needed it first; rows of whole vectors need
    it as much (a 12 x 128 x 128 softmax: exp inlined into the sum ran as a scalar libm call
    per value, 17x slower than the sketch policy's schedule)."""
    n = out.op.axes[-1].extent
    exp = any(t.op.tag == "softmax_exp" for t in dag.compute_stages)
    return lanes > 1 and out.op.tag == "softmax" and n > lanes and exp


def softmax_row_steps(t: Tensor, lanes: int, parallel: bool) -> list[S.Step]:
    """exp(x - max) computed once into its own buffer and the normalisation, each over the
    row in whole vectors plus a tail (a split by `lanes` that does not divide the row), so
    exp is the emitter's vector polynomial. Inlined, exp ran twice per value, as a scalar
    libm call in the sum's loop and, the row not being whole vectors, in an `omp simd`
    fallback in the output's: Swin-T's 49-wide softmax rows took 4x ONNX Runtime's time."""
    spatial = [a.name for a in t.op.axes]
    inner = spatial[-1]
    steps: list[S.Step] = [S.Split(t.name, inner, (lanes,)), S.Vectorize(t.name, f"{inner}.1")]
    return steps + parallel_rows(t.name, spatial[:-1]) if parallel else steps


def row_stat_steps(t: Tensor, lanes: int, parallel: bool) -> list[S.Step]:
    """A row's sum as `lanes` partial sums (a vector add per `lanes` values, `{name}.rf`),
    then the partials summed: the scalar sum was one dependent add per value, a latency
    chain of 768 adds per row of BERT or ViT, twice per layer norm (2-2.5% of the network
    by `benchmarks/models.py --profile`)."""
    op, rf = t.op, f"{t.name}.rf"
    spatial = [a.name for a in op.axes]
    r = op.reduce_axes[0].name
    steps: list[S.Step] = [
        S.RFactor(t.name, r, lanes),
        S.Reorder(rf, (*spatial, f"{r}_o", f"{r}_i")),
        S.Vectorize(rf, f"{r}_i"),
    ]
    if parallel:
        steps += parallel_rows(rf, spatial[:-1]) + parallel_rows(t.name, spatial[:-1])
    return steps


def parallel_rows(stage: str, outer: list[str]) -> list[S.Step]:
    """`stage`'s outer axes fused (where there are several) and run in parallel."""
    if not outer:
        return []
    fuse = [S.Fuse(stage, tuple(outer))] if len(outer) > 1 else []
    return [*fuse, S.Parallel(stage, "+".join(outer))]


class GenericTemplate(Template):
    generic = True

    def __init__(self, spec: OpSpec):
        self.spec = spec
        self.op = spec.op

    def validate(self, task: Task) -> dict[str, Any]:
        shapes, specs = self.spec.inputs(task), self.spec.specs(task)
        xs = [
            te.placeholder(s, specs[n].dtype if n in specs else "float32", name=n)
            for n, s in shapes
        ]
        try:
            out = self.spec.build(task, xs)
        except KeyError as exc:
            raise TaskError(f"{task.op}: missing param {exc.args[0]!r}") from None
        except TaskError:
            raise  # already names the op
        except (ValueError, TypeError) as exc:
            raise TaskError(f"{task.op}: {exc}") from None
        return {"inputs": xs, "out": out}

    def logical_inputs(self, task):
        self.validate(task)
        return self.spec.inputs(task)

    def input_specs(self, task):
        return self.spec.specs(task)

    def reference(self, task, inputs):
        return np.asarray(self.spec.reference(task, list(inputs.values())), dtype=np.float32)

    def flops(self, task):
        return float(self.spec.flops(task, self.validate(task)["out"].shape))

    def space(self, task: Task, target: Target) -> ConfigSpace:
        sp = ConfigSpace()
        sp.define_knob("parallel", [True, False])
        sp.define_knob("vectorize", [True, False])
        return sp

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        cfg = check_config(self.space(task, target), config, task.op)
        v = self.validate(task)
        steps = generic_steps(v["out"], v["inputs"], cfg, vector_lanes(target))
        return KernelDef(
            v["inputs"], [v["out"]], steps, [identity] * len(v["inputs"]), identity, io_key(task)
        )


TEMPLATES = [GenericTemplate(s) for s in SPECS]
