"""x86 pooling in NCHW[cb]c: vectorise over the channel block, a row tile of accumulators,
padding folded into the window loads (pooling is memory-bound; no padded copy).

Knobs: tile_c (cb), tile_ow (reg_n) for pool2d; tile_c for global pooling. A network's pool
task names the block its input arrives in (`block`), which pins tile_c.

Max pooling also takes `dtype: uint8 | int8` (an int8 network's activations: the max of
quantized values is the quantized max, exact, padding never wins). Global average pooling
takes an integer dtype with `qparams: [s_in, z_in, s_out, z_out]`: the int32 sum requantized
as ONNX Runtime's QLinearGlobalAveragePool does (`ir.ops.pool.global_avg_pool2d_q`).
Windowed average pooling is float32 only.
"""

from __future__ import annotations

from typing import Any

from tunefarm.backends.cpu.conv2d import best_block, register_tile_steps
from tunefarm.backends.cpu.quant import check_scale, check_zero_point
from tunefarm.backends.cpu.target import vector_lanes
from tunefarm.ir import layouts as L
from tunefarm.ir import quant_reference as QR
from tunefarm.ir import reference as R
from tunefarm.ir import tensor as te
from tunefarm.ir.ops.pool import (
    global_avg_pool2d_q,
    global_avg_pool_scale,
    global_pool2d,
    pool2d,
)
from tunefarm.schedule import steps as S
from tunefarm.schedule.space import ConfigSpace
from tunefarm.schedule.template import (
    INT8,
    UINT8,
    InputSpec,
    KernelDef,
    Template,
    accumulator,
    as_padding,
    as_pair,
    check_config,
    divisors,
    io_key,
)
from tunefarm.target import Target
from tunefarm.task import Task, TaskError


def _data(task: Task) -> tuple[int, int, int, int]:
    try:
        n, c, h, w = (int(v) for v in task.args["data"])
    except KeyError:
        raise TaskError(f"{task.op}: missing param 'data' (N, C, H, W)") from None
    except (TypeError, ValueError):
        raise TaskError(f"{task.op}: data must be (N, C, H, W)") from None
    return n, c, h, w


def _kind(task: Task) -> str:
    kind = task.args.get("kind", "max")
    if kind not in ("max", "avg"):
        raise TaskError(f"{task.op}: kind must be 'max' or 'avg', got {kind!r}")
    return kind


INT_SPECS = {"uint8": UINT8, "int8": INT8}


def _dtype(task: Task, kind: str) -> str:
    """float32, or uint8 / int8 for max pooling (and global average pooling with qparams)."""
    dtype = task.args.get("dtype", "float32")
    quantized_mean = task.op == "global_pool2d" and "qparams" in task.args
    if dtype != "float32" and (dtype not in INT_SPECS or (kind != "max" and not quantized_mean)):
        raise TaskError(
            f"{task.op}: dtype {dtype!r}: float32, or uint8 / int8 for max pooling (got kind "
            f"{kind!r})"
        )
    return dtype


class _PoolTemplate(Template):
    """Input specs and exact comparison for integer max pooling."""

    def input_specs(self, task: Task) -> dict[str, InputSpec]:
        dtype = self.validate(task)["dtype"]
        return {"data": INT_SPECS[dtype]} if dtype in INT_SPECS else {}

    def exact_output(self, task: Task) -> bool:
        return self.validate(task)["dtype"] in INT_SPECS


def _qparams(task: Task, dtype: str) -> tuple[float, int, float, int]:
    """[s_in, z_in, s_out, z_out] of a quantized mean; TaskError naming a bad value."""
    value = task.args.get("qparams")
    if not isinstance(value, list | tuple) or len(value) != 4:
        raise TaskError(f"{task.op}: param 'qparams' must be [s_in, z_in, s_out, z_out]")
    s_in, z_in, s_out, z_out = value
    return (
        check_scale(task.op, "qparams[0]", s_in),
        check_zero_point(task.op, "qparams[1]", z_in, dtype),
        check_scale(task.op, "qparams[2]", s_out),
        check_zero_point(task.op, "qparams[3]", z_out, dtype),
    )


MAX_BLOCK = 64  # the largest channel block of the pools' tile_c knob


def _block(task: Task, c: int) -> int | None:
    """The channel block a network pins the pool to (`block`: the layout its input arrives
    in, so that any config, template or sketch, computes in it), or None (free knob)."""
    b = task.args.get("block")
    if b is None:
        return None
    if isinstance(b, bool) or not isinstance(b, int) or b < 1 or c % b or b > MAX_BLOCK:
        raise TaskError(
            f"{task.op}: block must be a divisor of the {c} channels up to {MAX_BLOCK}, got {b!r}"
        )
    return b


def _tile_c(sp: ConfigSpace, task: Task, c: int) -> None:
    b = _block(task, c)
    only = None if b is None else (lambda e: e[1] == b)
    sp.define_split("tile_c", c, 2, max_factor=MAX_BLOCK, filter=only)


def _preferred_block(task: Task, c: int, target: Target) -> int:
    b = _block(task, c)
    return best_block(c, vector_lanes(target)) if b is None else b


def _pack(cb: int):
    return lambda x: L.transform(x, "NCHW", f"NCHW{cb}c")


def _accumulate(dag: te.ComputeDAG, kind: str) -> tuple[list[S.Step], str]:
    """Max pooling accumulates in a local cache of its output; average pooling in its
    `<out>_sum` stage, which the division stage reads."""
    out = dag.outputs[0]
    anchor = out if kind == "max" else dag.by_name[f"{out.name}_sum"]
    return accumulator(anchor, out)


def _pool_kernel(task: Task, dag: te.ComputeDAG, steps: list[S.Step], cb: int) -> KernelDef:
    """Data and output both in NCHW[cb]c."""
    return KernelDef(
        dag.inputs,
        dag.outputs,
        steps,
        [_pack(cb)],
        _pack(cb),
        io_key(task, cb=cb),
        {"data_layout": f"NCHW{cb}c", "out_layout": f"NCHW{cb}c"},
    )


class Pool2dNCHWc(_PoolTemplate):
    op = "pool2d"

    def validate(self, task: Task) -> dict[str, Any]:
        n, c, h, w = _data(task)
        _block(task, c)
        a = task.args
        p = dict(
            n=n,
            c=c,
            h=h,
            w=w,
            kind=_kind(task),
            kernel=as_pair(a.get("kernel", 2), "kernel"),
            strides=as_pair(a.get("strides", 1), "strides"),
            padding=as_padding(a.get("padding", 0)),
            dilation=as_pair(a.get("dilation", 1), "dilation"),
            ceil_mode=bool(a.get("ceil_mode", False)),
            count_include_pad=bool(a.get("count_include_pad", False)),
        )
        p["dtype"] = _dtype(task, p["kind"])
        if p["kind"] == "avg" and p["dilation"] != (1, 1):
            raise TaskError("pool2d: avg pooling with dilation is not supported (max only)")
        try:
            p["out"] = self._logical(p).shape
        except ValueError as exc:
            raise TaskError(f"pool2d: {exc}") from None
        return p

    def _logical(self, p: dict[str, Any], cb: int | None = None):
        shape = (
            (p["n"], p["c"], p["h"], p["w"])
            if cb is None
            else (p["n"], p["c"] // cb, p["h"], p["w"], cb)
        )
        data = te.placeholder(shape, p["dtype"], name="data")
        out = pool2d(
            data,
            p["kind"],
            p["kernel"],
            p["strides"],
            p["padding"],
            p["dilation"],
            p["ceil_mode"],
            p["count_include_pad"],
            "NCHW" if cb is None else f"NCHW{cb}c",
            name="pool",
        )
        return out

    def logical_inputs(self, task):
        p = self.validate(task)
        return [("data", (p["n"], p["c"], p["h"], p["w"]))]

    def reference(self, task, inputs):
        p = self.validate(task)
        if p["kind"] == "max":
            return R.max_pool2d_nchw(
                inputs["data"],
                p["kernel"],
                p["strides"],
                p["padding"],
                p["dilation"],
                p["ceil_mode"],
            )
        return R.avg_pool2d_nchw(
            inputs["data"],
            p["kernel"],
            p["strides"],
            p["padding"],
            p["ceil_mode"],
            p["count_include_pad"],
        )

    def flops(self, task):
        p = self.validate(task)
        n, c, oh, ow = p["out"]
        return float(n * c * oh * ow * p["kernel"][0] * p["kernel"][1])

    def space(self, task: Task, target: Target) -> ConfigSpace:
        p = self.validate(task)
        sp = ConfigSpace()
        _tile_c(sp, task, p["c"])
        sp.define_split("tile_ow", p["out"][3], 2, max_factor=32)
        return sp

    def preferred(self, task, space, target):
        p = self.validate(task)
        cb = _preferred_block(task, p["c"], target)
        ow = p["out"][3]
        reg = max(d for d in divisors(ow) if d <= 8)
        return {"tile_c": (p["c"] // cb, cb), "tile_ow": (ow // reg, reg)}

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        p = self.validate(task)
        cfg = check_config(self.space(task, target), config, "pool2d")
        cb = cfg["tile_c"][1]
        dag = te.ComputeDAG([self._logical(p, cb)])
        steps, acc = _accumulate(dag, p["kind"])
        if "pool_pad" in dag.by_name:
            steps.append(S.ComputeInline("pool_pad"))
        tile = {"tile_ow": cfg["tile_ow"], "oc_inner": 1}
        steps += register_tile_steps(
            "pool", acc, ("n", "cc", "y", "x", "cb"), tile, ("ky", "kx"), ("kx",)
        )
        return _pool_kernel(task, dag, steps, cb)


class GlobalPool2dNCHWc(_PoolTemplate):
    op = "global_pool2d"

    def validate(self, task: Task) -> dict[str, Any]:
        n, c, h, w = _data(task)
        _block(task, c)
        kind = _kind(task)
        p = dict(n=n, c=c, h=h, w=w, kind=kind, dtype=_dtype(task, kind), qparams=None)
        if kind == "avg" and p["dtype"] != "float32":
            p["qparams"] = _qparams(task, p["dtype"])
        return p

    def logical_inputs(self, task):
        p = self.validate(task)
        return [("data", (p["n"], p["c"], p["h"], p["w"]))]

    def reference(self, task, inputs):
        p = self.validate(task)
        if p["qparams"] is not None:
            s_in, z_in, s_out, z_out = p["qparams"]
            scale = global_avg_pool_scale(s_in, s_out, p["h"] * p["w"])
            return QR.global_avg_pool(inputs["data"], scale, z_in, z_out, p["dtype"])
        fn = R.global_max_pool2d_nchw if p["kind"] == "max" else R.global_avg_pool2d_nchw
        return fn(inputs["data"])

    def flops(self, task):
        p = self.validate(task)
        return float(p["n"] * p["c"] * p["h"] * p["w"])

    def space(self, task: Task, target: Target) -> ConfigSpace:
        sp = ConfigSpace()
        _tile_c(sp, task, self.validate(task)["c"])
        return sp

    def preferred(self, task, space, target):
        c = self.validate(task)["c"]
        cb = _preferred_block(task, c, target)
        return {"tile_c": (c // cb, cb)}

    def instantiate(self, task: Task, config: dict[str, Any], target: Target) -> KernelDef:
        p = self.validate(task)
        cfg = check_config(self.space(task, target), config, "global_pool2d")
        cb = cfg["tile_c"][1]
        shape = (p["n"], p["c"] // cb, p["h"], p["w"], cb)
        data = te.placeholder(shape, p["dtype"], name="data")
        if p["qparams"] is not None:
            out = global_avg_pool2d_q(data, p["qparams"], p["dtype"], f"NCHW{cb}c", name="gpool")
        else:
            out = global_pool2d(data, p["kind"], f"NCHW{cb}c", name="gpool")
        dag = te.ComputeDAG([out], [data])
        steps, acc = _accumulate(dag, p["kind"])
        steps += [
            S.Fuse("gpool", ("n", "cc", "y", "x")),
            S.Parallel("gpool", "n+cc+y+x"),
            S.Vectorize("gpool", "cb"),
            S.ComputeAt(acc, "gpool", "n+cc+y+x"),
            S.Reorder(acc, ("n", "cc", "y", "x", "ky", "kx", "cb")),
            S.Vectorize(acc, "cb"),
        ]
        return _pool_kernel(task, dag, steps, cb)
