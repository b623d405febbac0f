"""Compile a graph into an execution plan: one kernel call per node, with the best record per
tuning task (or the default config, and the reason), weights packed once at compile time,
and layout transforms only where a reader wants a layout its producer did not write.

    compiled = compile_graph(graph, "cpu", records="tune.jsonl")
    for choice in compiled.fallbacks():
        print(choice.reason)
    compiled.save("net.tfa")

Each node is lowered by one small method named after its op kind. Conv2d, dense and pools
use their x86 templates (blocked NCHW[x]c layouts); elementwise ops run in whatever layout
their input is in; concat along channels stays blocked when its inputs share a block;
everything else runs on the generic template in the logical layout.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from os import PathLike
from typing import Any

import numpy as np

from tunefarm.backends import canonical, check_networks, parse_target, registry
from tunefarm.compiler import gpu, quantized
from tunefarm.compiler.layouts import Layout, block, padded, physical_shape, same_memory
from tunefarm.graph.extract import (
    TUNABLE_OPS,
    anchor_alternatives,
    attention_task,
    choose_alternative,
    for_target,
)
from tunefarm.graph.ir import Graph, GraphError, Node, input_ranges
from tunefarm.graph.passes import optimize
from tunefarm.measure.types import Config, MeasureInput
from tunefarm.runtime.artifact import build_artifact
from tunefarm.runtime.plan import BufferSpec, Call, ExecPlan, KernelCode
from tunefarm.schedule.template import KernelDef
from tunefarm.task import Task, TaskError
from tunefarm.tune.dispatch import ApplyHistoryBest
from tunefarm.tune.records import Record
from tunefarm.tune.stale import StaleRecords


class CompileError(GraphError):
    """A node the compiler cannot lower; the message names the node and op."""


@dataclass
class TaskChoice:
    """The config compile used for one tuning task and why ("record" or the fallback reason)."""

    task: Task
    config: Config
    reason: str
    nodes: list[str] = field(default_factory=list)

    @property
    def tuned(self) -> bool:
        return self.reason == "record"

    def to_json(self) -> dict[str, Any]:
        return {
            "workload_key": self.task.workload_key,
            "op": self.task.op,
            "config": self.config.as_dict(),
            "tuned": self.tuned,
            "reason": self.reason,
            "nodes": list(self.nodes),
        }


@dataclass
class CompiledNetwork:
    plan: ExecPlan
    choices: list[TaskChoice]
    # records of the log that match no task of the network (None: none, or no records)
    stale: StaleRecords | None = None

    def fallbacks(self) -> list[TaskChoice]:
        """Tasks that run a default config, with the reason (no record for the workload,
        target or device key, or every record failed)."""
        return [c for c in self.choices if not c.tuned]

    def save(self, path: str | PathLike, cc: str = "gcc", jobs: int | None = None):
        return build_artifact(self.plan, path, cc=cc, jobs=jobs)


UNARY_FNS = {
    "relu": "relu",
    "sigmoid": "sigmoid",
    "hard_swish": "hard_swish",
    "silu": "silu",
    "leaky_relu": "leaky_relu",
    "clip": "clip",
    "hard_sigmoid": "hard_sigmoid",
    "erf": "erf",
    "tanh": "tanh",
    "sqrt": "sqrt",
    "square": "square",
    "gelu": "gelu",
}
BINARY_FNS = {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide", "equal": "equal"}
UNARY_ATTRS = {"leaky_relu": ("alpha",), "clip": ("lo", "hi"), "hard_sigmoid": ("alpha", "beta")}


class _Lowering:
    """The state of one compilation: buffers, the layout each value is held in, kernels
    (deduplicated by source), calls, packed params and the configs chosen."""

    def __init__(
        self,
        graph: Graph,
        target: str,
        history: ApplyHistoryBest | None,
        device: str | None,
        overrides: Mapping[Task, Config],
    ):
        self.g, self.target, self.history, self.device = graph, target, history, device
        self.overrides = overrides
        self.buffers: dict[str, BufferSpec] = {}
        self.buf_of: dict[str, str] = {}  # value -> buffer holding it in layout[value]
        self.layout: dict[str, Layout] = {}
        self.converted: dict[tuple[str, Layout], str] = {}
        self.kernels: dict[str, KernelCode] = {}
        self.kernel_by_code: dict[str, str] = {}
        self.kernel_of: dict[tuple[Task, Config], tuple[str, tuple]] = {}
        self.calls: list[Call] = []
        self.params: dict[str, np.ndarray] = {}
        self.packed: dict[tuple[str, str], str] = {}
        self.choices: dict[Task, TaskChoice] = {}
        self.task_keys: set[str] = set()  # every task considered (alternatives too): `stale`
        self.node: Node | None = None
        self.on_device = gpu.is_device_target(target)  # a GPU: see compiler/gpu.py
        self.readers: dict[str, list[Node]] | None = None  # value -> nodes reading it
        self.fused: set[str] = set()  # nodes an earlier node's kernel computed

    # -- buffers ---------------------------------------------------------------------------
    def new_buffer(self, shape, dtype: str, kind: str = "temp", alias_of: str | None = None) -> str:
        name = f"b{len(self.buffers)}"
        if alias_of is not None:
            alias_of = self.buffers[alias_of].alias_of or alias_of
        self.buffers[name] = BufferSpec(name, tuple(int(d) for d in shape), dtype, kind, alias_of)
        return name

    def define(self, value: str, shape, layout: Layout) -> str:
        buf = self.new_buffer(shape, self.g.value(value).dtype)
        self.buf_of[value], self.layout[value] = buf, layout
        return buf

    def param(
        self, value: str, pack: Callable[[np.ndarray], np.ndarray] | None = None, key: str = ""
    ) -> str:
        """A param buffer holding `value` packed by `pack` (once per value and packing)."""
        if (value, key) not in self.packed:
            array = self.g.params[value]
            array = np.ascontiguousarray(pack(array) if pack else array)
            buf = self.new_buffer(array.shape, str(array.dtype), "param")
            self.params[buf] = array
            self.packed[(value, key)] = buf
        return self.packed[(value, key)]

    def held(self, value: str) -> str:
        if value not in self.buf_of and self.g.is_param(value):
            self.buf_of[value], self.layout[value] = self.param(value), None
        return self.buf_of[value]

    def in_layout(self, value: str, want: Layout) -> str:
        """A buffer holding `value` in layout `want`, converting (once) if needed."""
        buf, have = self.held(value), self.layout.get(value)
        if have == want:
            return buf
        if (value, want) in self.converted:
            return self.converted[(value, want)]
        logical = self.g.shape(value)
        shape = physical_shape(logical, want)
        if same_memory(logical, have, want):
            out = self.new_buffer(shape, self.buffers[buf].dtype, alias_of=buf)
        else:
            # a value held with padded channels (`compiler.layouts`) names its channels
            pad = padded(logical, have) or padded(logical, want)
            pads = {"channels": logical[1]} if pad else {}
            task = Task.make(
                "layout_transform",
                target=self.target,
                shape=self.buffers[buf].shape,
                src=have or "NCHW",
                dst=want or "NCHW",
                **pads,
            )
            out = self.new_buffer(shape, self.buffers[buf].dtype)
            self.call_default(task, [buf, out], f"{value}->{want or 'NCHW'}")
        self.converted[(value, want)] = out
        return out

    def logical(self, value: str) -> str:
        return self.in_layout(value, None)

    # -- kernels ---------------------------------------------------------------------------
    def call(self, task: Task, config: Config, args: list[str], label: str | None = None) -> None:
        """Call the kernel of (task, config) on `args`, generating it on first use."""
        name, specs = self.kernel(task, config)
        self._check_args(specs, args)
        where = [self.node.name] if self.node else []
        where += [label] if label else []
        self.calls.append(Call(name, tuple(args), ":".join(where)))

    def call_default(self, task: Task, args: list[str], label: str | None = None) -> None:
        """`call` for a kernel that is not an anchor (elementwise, pools, transforms, ...):
        its best record when the records hold its workload (`--policy sketch|auto` tunes
        these, see `compiler.tasks`), else the template's default config."""
        self.call(task, self.choose_op(task, label), args, label)

    def choose_op(self, task: Task, label: str | None = None) -> Config:
        """A non-anchor task's config. It is reported (a `TaskChoice`, with its fallback
        reason) only when some record or override names its workload: without records
        these ops run their default kernels, as they always did, and are not listed."""
        known = task in self.overrides or (self.history is not None and self.history.knows(task))
        if not known:
            return registry.default_config(task)
        return self.choose(task, label)

    def kernel(self, task: Task, config: Config) -> tuple[str, tuple]:
        """(kernel name, argument specs) of (task, config): lowered and emitted once per
        pair (a network repeats its blocks) and stored once per distinct source."""
        key = (task, config)
        if key not in self.kernel_of:
            try:
                src = registry.generate_source(MeasureInput(task, config))
            except (TaskError, ValueError) as exc:
                raise self.error(f"cannot generate its {task.op} kernel: {exc}") from None
            digest = hashlib.sha256(src.code.encode()).hexdigest()
            name = self.kernel_by_code.get(digest)
            if name is None:
                name = f"k{len(self.kernels)}_{task.op}"
                self.kernels[name] = KernelCode(name, src.code, len(src.arg_specs))
                self.kernel_by_code[digest] = name
            self.kernel_of[key] = (name, src.arg_specs)
        return self.kernel_of[key]

    def _check_args(self, specs, args: list[str]) -> None:
        for spec, buf in zip(specs, args, strict=True):
            have = self.buffers[buf].shape
            if tuple(spec.shape) != have:
                raise self.error(
                    f"kernel argument {spec.name} wants shape {spec.shape}, buffer has {have}"
                )
            if spec.dtype != self.buffers[buf].dtype:
                raise self.error(
                    f"kernel argument {spec.name} wants {spec.dtype}, buffer holds "
                    f"{self.buffers[buf].dtype}"
                )

    def error(self, message: str) -> CompileError:
        where = self.node.where() if self.node else "graph"
        return CompileError(f"{where}: {message}")

    def choose(self, task: Task, label: str | None = None) -> Config:
        self.task_keys.add(task.workload_key)
        if task not in self.choices:
            if task in self.overrides:
                config, reason = self.overrides[task], "record"
            elif self.history is None:
                config, reason = registry.default_config(task), "no records given"
            else:
                config, reason = self.history.query(task, self.device)
            self.choices[task] = TaskChoice(task, config, reason)
        where = ":".join(([self.node.name] if self.node else []) + ([label] if label else []))
        self.choices[task].nodes.append(where or "graph")
        return self.choices[task].config

    def instantiate(self, task: Task, config: Config) -> KernelDef:
        try:
            return registry.instantiate(task, config)
        except (TaskError, ValueError) as exc:
            raise self.error(str(exc)) from None

    # -- node lowering ---------------------------------------------------------------------
    def lower(self, node: Node) -> None:
        self.node = node
        if node.name in self.fused:
            return
        if self.on_device and gpu.lower(self, node):
            return
        if node.op in TUNABLE_OPS:
            self.anchor(node)
        elif node.op in ("pool2d", "global_pool2d"):
            self.pool(node)
        elif node.op == "reshape":
            self.reshape(node)
        elif node.op in UNARY_FNS:
            self.unary(node)
        elif node.op in BINARY_FNS:
            self.binary(node)
        elif node.op == "concat":
            self.concat(node)
        elif node.op == "split":
            self.split(node)
        elif node.op in GENERIC_PARAMS:
            self.generic(node)
        elif node.op in OTHER_OPS:
            getattr(self, OTHER_OPS[node.op])(node)
        elif node.op in quantized.LOWERING:
            quantized.LOWERING[node.op](self, node)
        else:
            raise self.error("no kernel for this op in the network compiler")

    def anchor(self, node: Node) -> None:
        weight = node.inputs[1]
        if not self.g.is_param(weight):
            raise self.error(f"weight {weight!r} is computed at run time; it must be a constant")
        if 0 in self.g.shape(weight):
            raise self.error(f"weight {weight!r} is empty: shape {list(self.g.shape(weight))}")
        alternatives = anchor_alternatives(self.g, node, self.target)
        self.task_keys.update(t.workload_key for t in alternatives)
        task = choose_alternative(alternatives, self.history, self.device, self.overrides)
        config = self.choose(task)
        kdef = self.instantiate(task, config)
        data_layout, out_layout = kdef.notes.get("data_layout"), kdef.notes.get("out_layout")
        shapes = [shape for _, shape in registry.template(task).logical_inputs(task)]
        args = [self.in_layout(node.inputs[0], data_layout)]
        args.append(self.task_param(node.inputs[1], kdef.packers[1], shapes[1], kdef.io_key))
        for i, extra in enumerate(node.inputs[2:], start=2):
            if self.g.is_param(extra):
                key = f"{kdef.io_key}#{i}"
                args.append(self.task_param(extra, kdef.packers[i], shapes[i], key))
            else:
                args.append(self.in_layout(extra, out_layout))
        args.append(self.define(node.outputs[0], kdef.outputs[0].shape, out_layout))
        self.call(task, config, args)

    def task_param(self, value: str, pack, shape, key: str) -> str:
        """`param` of a kernel input whose task has `shape` for it: a conv whose channels the
        backend padded to whole vectors (`backends.cpu.conv2d.padded_channels`) gets its
        weights and bias padded with zeros, so its padded output lanes are zero and its
        padded input lanes are read through zero weights."""
        have = tuple(self.g.shape(value))
        if have == tuple(shape):
            return self.param(value, pack, key)
        if len(have) != len(shape) or any(h > s for h, s in zip(have, shape, strict=True)):
            raise self.error(f"param {value!r} of shape {list(have)} does not fit {list(shape)}")

        def pad_then_pack(x, pack=pack, shape=tuple(shape)):
            x = np.pad(x, [(0, s - d) for s, d in zip(shape, x.shape, strict=True)])
            return pack(x) if pack else x

        return self.param(value, pad_then_pack, key)

    def pool(self, node: Node) -> None:
        """Pools run in the block their input arrives in: the task names it (`block`), so its
        default config, and any record of it, computes in that layout."""
        data = node.inputs[0]
        params: dict[str, Any] = {"data": self.g.shape(data), "kind": node.attrs.get("kind", "max")}
        if self.g.value(data).dtype != "float32":  # an int8 network's pool
            params["dtype"] = self.g.value(data).dtype
            if node.attrs.get("qparams") is not None:  # a quantized mean
                params["qparams"] = list(node.attrs["qparams"])
        if node.op == "pool2d":
            for k in ("kernel", "strides", "padding", "dilation", "ceil_mode", "count_include_pad"):
                params[k] = node.attrs[k]
        task = Task.make(node.op, target=self.target, **params)
        b, c = block(self.layout.get(data)), params["data"][1]
        if b and padded(params["data"], self.layout.get(data)):
            c = -(-c // b) * b  # a pool works per channel: it pools the padded lanes too
            params["data"] = [params["data"][0], c, *params["data"][2:]]
        if b and c % b == 0:
            blocked = Task.make(node.op, target=self.target, **params, block=b)
            try:
                registry.default_config(blocked)
                task = blocked
            except (TaskError, ValueError):
                pass  # this block is outside the pool's space: convert to its default instead
        config = self.choose_op(task)
        kdef = self.instantiate(task, config)
        args = [self.in_layout(data, kdef.notes["data_layout"])]
        args.append(self.define(node.outputs[0], kdef.outputs[0].shape, kdef.notes["out_layout"]))
        self.call(task, config, args)

    def reshape(self, node: Node) -> None:
        """A reshape of a logical value is a view of the same memory: no kernel."""
        src = self.logical(node.inputs[0])
        out = node.outputs[0]
        buf = self.new_buffer(self.g.shape(out), self.g.value(out).dtype, alias_of=src)
        self.buf_of[out], self.layout[out] = buf, None

    def unary(self, node: Node) -> None:
        """In the input's layout, a blocked one as rows of vectors (`_rows`); a square root
        of a value held with padded channels runs logical (a padded lane that an earlier op
        made negative would become a NaN)."""
        src = node.inputs[0]
        layout = self.layout.get(src)
        if node.op == "sqrt" and padded(self.g.shape(src), layout):
            layout = None
        buf = self.in_layout(src, layout)
        shape = self.buffers[buf].shape
        out = self.define(node.outputs[0], shape, layout)
        if block(layout) > 1 and len(shape) == 5:
            buf, out = self.view(buf, _rows(shape)), self.view(out, _rows(shape))
        attrs = {k: float(node.attrs[k]) for k in UNARY_ATTRS.get(node.op, ())}
        task = Task.make(
            "elementwise",
            target=self.target,
            fn=UNARY_FNS[node.op],
            shapes=[self.buffers[buf].shape],
            **attrs,
        )
        self.call_default(task, [buf, out])

    def binary(self, node: Node) -> None:
        """Same-shaped activations stay in the first one's layout; so does a blocked
        activation times (plus, ...) a per-channel value (`channel_operand`); other
        broadcasts run logical. A division touching a value held with padded channels runs
        logical too: its padded lanes are zero, and 0 / 0 would put NaNs there, which even
        a conv's zero weights pass on."""
        a, b = node.inputs
        same = self.g.shape(a) == self.g.shape(b) and not (self.g.is_param(a) or self.g.is_param(b))
        layout = self.layout.get(a) if same else None
        if node.op == "div" and any(padded(self.g.shape(v), self.layout.get(v)) for v in (a, b)):
            same, layout = True, None  # neither blocked path: both operands logical
        if not same:
            blocked = self.channel_operand(a, b)
            if blocked is not None:
                out_shape = physical_shape(self.g.shape(node.outputs[0]), blocked[1])
                out = self.define(node.outputs[0], out_shape, blocked[1])
                bufs = [self.view(x, _pixels(self.buffers[x].shape)) for x in blocked[0]]
                self.call_binary(node, [*bufs, self.view(out, _pixels(out_shape))])
                return
        bufs = [self.in_layout(v, layout) for v in (a, b)]
        out_shape = physical_shape(self.g.shape(node.outputs[0]), layout)
        out = self.define(node.outputs[0], out_shape, layout)
        if block(layout) > 1 and len(out_shape) == 5:  # same shapes: rows of vectors
            bufs, out = (
                [self.view(x, _rows(out_shape)) for x in bufs],
                self.view(out, _rows(out_shape)),
            )
        self.call_binary(node, [*bufs, out])

    def call_binary(self, node: Node, args: list[str]) -> None:
        """The elementwise kernel of a binary node on (a, b, out) buffers as they are."""
        shapes = [self.buffers[x].shape for x in args[:2]]
        task = Task.make("elementwise", target=self.target, fn=BINARY_FNS[node.op], shapes=shapes)
        self.call_default(task, args)

    def channel_operand(self, a: str, b: str) -> tuple[list[str], Layout] | None:
        """([buffer of a, buffer of b], layout) when one operand is a 4-D activation held in
        a blocked layout and the other is per channel ([1 or N, C, 1, 1]: a squeeze-excite
        gate, a computed scale; or a [C, 1, 1] constant: DenseNet's batch norms before
        its convs) with the result the activation's shape: then both are
        read blocked, the per-channel one as [., C/b, 1, 1, b], which is its own memory
        (`same_memory`), and broadcasting does the rest. Without it the SE block's multiply
        costs a layout transform each way around a logical kernel (regnet_y_400mf's legacy
        export: 3 of its 11 ms). None otherwise."""
        shapes = {v: tuple(self.g.shape(v)) for v in (a, b)}
        for big, small in ((a, b), (b, a)):
            layout = self.layout.get(big)
            s, t = shapes[big], shapes[small]
            if self.g.is_param(small) and t == (s[1:2] + (1, 1) if len(s) == 4 else None):
                t = (1, *t)  # a [C, 1, 1] constant (a batch norm not after a conv)
            if (
                self.g.is_param(big)
                or block(layout) <= 1
                or len(s) != 4
                or len(t) != 4
                or t[1:] != (s[1], 1, 1)
                or t[0] not in (1, s[0])
            ):
                continue
            if self.g.is_param(small):
                phys = physical_shape(t, layout)
                key = f"as {layout}"
                small_buf = self.param(small, partial(_per_channel, phys=phys), key)
            else:
                small_buf = self.in_layout(small, layout)
            bufs = {big: self.held(big), small: small_buf}
            return [bufs[a], bufs[b]], layout
        return None

    def channel_affine(self, node: Node) -> None:
        """x * scale + shift (+ relu) in one pass (several xs: joined along C in the same
        pass), in the block x arrives in, each [N, C/b, H, W, b] buffer seen as
        [N, C/b, H * W, b] (one division per vector fewer) and the [1, C, 1, 1] constants
        read as [1, C/b, 1, b] (their own memory). Logical when the xs' layouts differ."""
        xs, consts = node.inputs[:-2], node.inputs[-2:]
        layouts = {self.layout.get(x) for x in xs}
        layout = layouts.pop() if len(layouts) == 1 else None
        b = block(layout)
        if not (b > 1 and all(len(s := self.g.shape(x)) == 4 and s[1] % b == 0 for x in xs)):
            layout = None
        out_shape = physical_shape(self.g.shape(node.outputs[0]), layout)
        out = self.define(node.outputs[0], out_shape, layout)
        bufs = [self.in_layout(x, layout) for x in xs]
        if layout is not None:
            bufs, out = (
                [self.view(x, _pixels(self.buffers[x].shape)) for x in bufs],
                self.view(out, _pixels(out_shape)),
            )
        for v in consts:
            phys = (1, *self.buffers[out].shape[1:-2], 1, self.buffers[out].shape[-1])
            phys = physical_shape(self.g.shape(v), None) if layout is None else phys
            bufs.append(self.param(v, lambda a, phys=phys: a.reshape(phys), f"as {layout}"))
        task = Task.make(
            "elementwise",
            target=self.target,
            fn="affine",
            relu=bool(node.attrs.get("relu", False)),
            shapes=[self.buffers[x].shape for x in bufs],
        )
        self.call_default(task, [*bufs, out])

    def concat(self, node: Node) -> None:
        """Concat along C, H or W stays blocked when every input is in the same block
        (inception's and squeezenet's branch outputs; the bands of a split conv), else
        runs logical."""
        ins = node.inputs
        rank = len(self.g.shape(ins[0]))
        axis = int(node.attrs["axis"]) % rank
        shuffle = self.shuffle_after(node) if rank == 4 and axis == 1 else None
        if "channel_shuffle" not in registry.ops(parse_target(self.target).kind):
            shuffle = None  # a backend without the kernel (GPUs, VTA) runs the three ops
        if shuffle is not None:
            self.concat_shuffle(node, *shuffle)
            return
        layouts = {self.layout.get(v) for v in ins}
        layout = next(iter(layouts)) if len(layouts) == 1 else None
        if any(padded(self.g.shape(v), layout) for v in ins):
            layout = None  # padded channels: a blocked concat would keep the pads in between
        if layout is not None and not (axis in (1, 2, 3) and rank == 4):
            layout = None
        if layout is None and rank == 4 and any(block(self.layout.get(v)) > 1 for v in ins):
            self.concat_blocked_inputs(node, axis)
            return
        bufs = [self.in_layout(v, layout) for v in ins]
        out_shape = physical_shape(self.g.shape(node.outputs[0]), layout)
        out = self.define(node.outputs[0], out_shape, layout)
        if axis == 1 and block(layout) > 1:  # along whole channel blocks: see `_rows`
            bufs, out = (
                [self.view(x, _rows(self.buffers[x].shape)) for x in bufs],
                self.view(out, _rows(out_shape)),
            )
        shapes = [self.buffers[x].shape for x in bufs]
        task = Task.make("concat", target=self.target, shapes=shapes, axis=axis)
        self.call_default(task, [*bufs, out])

    def concat_blocked_inputs(self, node: Node, axis: int) -> None:
        """A logical concat of inputs some of which are blocked (ShuffleNet's branch outputs,
        padded, beside the logical half it passes through): the kernel reads each blocked
        input in its own layout (the concat task's `layouts`), so no transform runs first."""
        ins = node.inputs
        layouts = [self.layout.get(v) if block(self.layout.get(v)) > 1 else None for v in ins]
        bufs = [self.in_layout(v, lay) for v, lay in zip(ins, layouts, strict=True)]
        task = Task.make(
            "concat",
            target=self.target,
            shapes=[self.buffers[x].shape for x in bufs],
            axis=axis,
            layouts=layouts,
            channels=[int(self.g.shape(v)[1]) for v in ins],
        )
        out = self.define(node.outputs[0], self.g.shape(node.outputs[0]), None)
        self.call_default(task, [*bufs, out])

    def sole_reader(self, value: str, op: str) -> Node | None:
        """The one node reading `value`, if it is an `op` and `value` is no graph output."""
        if self.readers is None:
            self.readers = self.g.consumers()
        nodes = self.readers.get(value, [])
        if len(nodes) != 1 or nodes[0].op != op or value in self.g.outputs:
            return None
        return nodes[0]

    def shuffle_after(self, node: Node) -> tuple[list[Node], int] | None:
        """([reshape, transpose, reshape], groups) when the concat's output is only a
        channel shuffle's input (ShuffleNet v2: reshape to [N, g, C/g, H, W], transpose
        perm [0, 2, 1, 3, 4], reshape to [N, C, H, W]); None otherwise."""
        n, c, h, w = self.g.shape(node.outputs[0])
        first = self.sole_reader(node.outputs[0], "reshape")
        if first is None or len(self.g.shape(first.outputs[0])) != 5:
            return None
        groups = self.g.shape(first.outputs[0])[1]
        if self.g.shape(first.outputs[0]) != (n, groups, c // groups, h, w) or groups < 2:
            return None
        swap = self.sole_reader(first.outputs[0], "transpose")
        if swap is None or tuple(swap.attrs["perm"]) != (0, 2, 1, 3, 4):
            return None
        last = self.sole_reader(swap.outputs[0], "reshape")
        if last is None or self.g.shape(last.outputs[0]) != (n, c, h, w):
            return None
        return [first, swap, last], groups

    def concat_shuffle(self, node: Node, nodes: list[Node], groups: int) -> None:
        """A concat and the channel shuffle after it as one kernel (`channel_shuffle`),
        reading blocked inputs in their own layouts and writing the shuffled value logical:
        one pass instead of a concat and a transpose (and a transform per blocked input)."""
        ins = node.inputs
        layouts = [self.layout.get(v) if block(self.layout.get(v)) > 1 else None for v in ins]
        bufs = [self.in_layout(v, lay) for v, lay in zip(ins, layouts, strict=True)]
        task = Task.make(
            "channel_shuffle",
            target=self.target,
            shapes=[self.buffers[x].shape for x in bufs],
            layouts=layouts,
            channels=[int(self.g.shape(v)[1]) for v in ins],
            groups=groups,
        )
        value = nodes[-1].outputs[0]
        self.call_default(task, [*bufs, self.define(value, self.g.shape(value), None)])
        self.fused.update(n.name for n in nodes)

    def split(self, node: Node) -> None:
        src = self.logical(node.inputs[0])
        shape = self.buffers[src].shape
        axis = int(node.attrs["axis"]) % len(shape)
        begin = 0
        for out, size in zip(node.outputs, node.attrs["sizes"], strict=True):
            task = Task.make(
                "slice",
                target=self.target,
                shape=shape,
                axis=axis,
                begin=begin,
                end=begin + int(size),
            )
            if not self.channel_slice_into(src, out, axis, begin, int(size)):
                self.call_default(task, [src, self.define(out, self.g.shape(out), None)])
            begin += int(size)

    def channel_slice_into(self, src: str, out: str, axis: int, begin: int, size: int) -> bool:
        """Slice channels [begin, begin + size) of the logical 4-D buffer `src` straight into
        the blocked layout every reader of `out` wants (`reader_layout`): one layout
        transform with an offset, instead of a slice and then a transform (ShuffleNet's
        split, whose second half feeds a conv). False, doing nothing, otherwise."""
        shape = self.buffers[src].shape
        want = self.reader_layout(out)
        if want is None or axis != 1 or len(shape) != 4:
            return False
        logical = self.g.shape(out)
        pads = {"offset": begin} if begin else {}
        task = Task.make(
            "layout_transform",
            target=self.target,
            shape=shape,
            src="NCHW",
            dst=want,
            channels=size,
            **pads,
        )
        self.call_default(task, [src, self.define(out, physical_shape(logical, want), want)])
        return True

    def reader_layout(self, value: str) -> Layout:
        """The blocked layout every reader of `value` reads it in, when all are dense or
        depthwise convs reading it as their data (their tasks pin the channel blocks, see
        `backends.cpu.layout`, whatever config a record gives); None otherwise."""
        if self.on_device:
            return None
        if self.readers is None:
            self.readers = self.g.consumers()
        nodes = self.readers.get(value, [])
        wants = set()
        for node in nodes:
            if node.op != "conv2d" or node.inputs[0] != value or value in node.inputs[1:]:
                return None
            for task in anchor_alternatives(self.g, node, self.target):
                wants.add(tuple(task.args.get("blocks") or (0,))[0])
        if not nodes or len(wants) != 1 or next(iter(wants)) <= 1:
            return None
        return f"NCHW{next(iter(wants))}c"

    def generic(self, node: Node) -> None:
        """Ops of the generic template, in the logical layout."""
        op, keys = GENERIC_PARAMS[node.op]
        bufs = [self.logical(v) for v in node.inputs]
        params: dict[str, Any] = {k: node.attrs[k] for k in keys}
        if node.op == "matmul":
            self.matmul(node, bufs)
            return
        params["shape"] = self.buffers[bufs[0]].shape
        task = Task.make(op, target=self.target, **params)
        out = self.define(node.outputs[0], self.g.shape(node.outputs[0]), None)
        self.call_default(task, [*bufs, out])

    # -- transformer ops -------------------------------------------------------------------
    def view(self, buf: str, shape) -> str:
        """The same memory as `buf` under another shape (a free reshape)."""
        return self.new_buffer(shape, self.buffers[buf].dtype, alias_of=buf)

    def broadcast(self, buf: str, shape: tuple[int, ...]) -> str:
        """`buf` broadcast to `shape` in a new buffer (or `buf` itself when it has it)."""
        if self.buffers[buf].shape == tuple(shape):
            return buf
        task = Task.make(
            "broadcast_to", target=self.target, shape=self.buffers[buf].shape, out=list(shape)
        )
        out = self.new_buffer(shape, self.buffers[buf].dtype)
        self.call_default(task, [buf, out], "broadcast")
        return out

    def matmul(self, node: Node, bufs: list[str]) -> None:
        """N-D matmul: a [..., K] by a 2-D b folds the leading dims into rows; otherwise the
        batch dims broadcast (materialised where they differ) and fold into one, so every
        product is one 2-D matmul or one 3-D batch_matmul kernel on views."""
        a, b = (self.buffers[x].shape for x in bufs)
        out_shape = self.g.shape(node.outputs[0])
        if len(a) == 1:  # numpy: a vector is one row, then dropped from the output
            a, bufs = (1, a[0]), [self.view(bufs[0], (1, a[0])), bufs[1]]
        if len(b) == 1:
            b, bufs = (b[0], 1), [bufs[0], self.view(bufs[1], (b[0], 1))]
        if len(b) == 2:
            rows = (int(np.prod(a[:-1])), a[-1])
            task = Task.make("matmul", target=self.target, a=rows, b=b)
            out = self.new_buffer((rows[0], b[1]), self.g.value(node.outputs[0]).dtype)
            self.call_default(task, [self.view(bufs[0], rows), bufs[1], out])
        else:
            batch = tuple(int(d) for d in np.broadcast_shapes(a[:-2], b[:-2]))
            n = int(np.prod(batch))
            full_a = self.broadcast(bufs[0], (*batch, *a[-2:]))
            full_b = self.broadcast(bufs[1], (*batch, *b[-2:]))
            a3, b3 = (n, *a[-2:]), (n, *b[-2:])
            task = Task.make("batch_matmul", target=self.target, a=a3, b=b3)
            out = self.new_buffer((n, a[-2], b[-1]), self.g.value(node.outputs[0]).dtype)
            self.call_default(task, [self.view(full_a, a3), self.view(full_b, b3), out])
        self.buf_of[node.outputs[0]] = self.view(out, out_shape)
        self.layout[node.outputs[0]] = None

    def attention(self, node: Node) -> None:
        """One fused kernel in the logical layout; its task is the one task extraction
        gives the node, so a tuned record of it applies."""
        bufs = [self.logical(v) for v in node.inputs]
        task = attention_task(self.g, node, self.target)
        out = self.define(node.outputs[0], self.g.shape(node.outputs[0]), None)
        self.call_default(task, [*bufs, out])

    def cast(self, node: Node) -> None:
        src = self.logical(node.inputs[0])
        spec = self.buffers[src]
        task = Task.make(
            "elementwise",
            target=self.target,
            fn="cast",
            shapes=[spec.shape],
            dtypes=[spec.dtype],
            dtype=node.attrs["dtype"],
        )
        self.call_default(task, [src, self.define(node.outputs[0], spec.shape, None)])

    def where(self, node: Node) -> None:
        bufs = [self.logical(v) for v in node.inputs]
        shapes = [list(self.buffers[x].shape) for x in bufs]
        task = Task.make("where", target=self.target, shapes=shapes)
        out = self.define(node.outputs[0], self.g.shape(node.outputs[0]), None)
        self.call_default(task, [*bufs, out])

    def gather(self, node: Node) -> None:
        data, indices = (self.logical(v) for v in node.inputs)
        task = Task.make(
            "gather",
            target=self.target,
            data=self.buffers[data].shape,
            indices=self.buffers[indices].shape,
            indices_dtype=self.buffers[indices].dtype,
            axis=int(node.attrs["axis"]),
        )
        out = self.define(node.outputs[0], self.g.shape(node.outputs[0]), None)
        self.call_default(task, [data, indices, out])

    def expand(self, node: Node) -> None:
        src = self.logical(node.inputs[0])
        out = self.broadcast(src, tuple(node.attrs["shape"]))
        if out == src:  # a no-op expand still defines its own value
            out = self.view(src, self.buffers[src].shape)
        self.buf_of[node.outputs[0]], self.layout[node.outputs[0]] = out, None

    def slice(self, node: Node) -> None:
        """A slice along H or W of a blocked activation stays blocked: those axes index the
        blocked array as they index the logical one (a conv split into bands slices its
        input so); other slices run logical."""
        value, a = node.inputs[0], node.attrs
        rank, layout = len(self.g.shape(value)), self.layout.get(value)
        axis = int(a["axis"])
        if not (rank == 4 and axis % rank in (2, 3) and block(layout) > 1):
            layout = None
        src = self.in_layout(value, layout)
        begin, end = int(a["begin"]), int(a["end"])
        if layout is None and rank == 4 and axis % rank == 1:  # a channel slice
            if self.channel_slice_into(src, node.outputs[0], 1, begin, end - begin):
                return
        task = Task.make(
            "slice",
            target=self.target,
            shape=self.buffers[src].shape,
            axis=axis % rank if layout else axis,
            begin=int(a["begin"]),
            end=int(a["end"]),
        )
        out_shape = physical_shape(self.g.shape(node.outputs[0]), layout)
        self.call_default(task, [src, self.define(node.outputs[0], out_shape, layout)])

    # -- the network's edges ---------------------------------------------------------------
    def bind_inputs(self) -> list[tuple[str, str]]:
        pairs = []
        for v in self.g.inputs:
            buf = self.new_buffer(v.shape, v.dtype, "input")
            self.buf_of[v.name], self.layout[v.name] = buf, None
            pairs.append((v.name, buf))
        return pairs

    def bind_outputs(self) -> list[tuple[str, str]]:
        """Each output in the logical layout in its own buffer; a value that is a view, an
        input, a param or already an output is copied out."""
        self.node = None
        pairs = []
        taken: set[str] = set()
        for name in dict.fromkeys(self.g.outputs):  # runs return outputs by name: once each
            buf = self.logical(name)
            spec = self.buffers[buf]
            if spec.kind == "temp" and spec.alias_of is None and buf not in taken:
                self.buffers[buf] = BufferSpec(buf, spec.shape, spec.dtype, "output")
            else:
                out = self.new_buffer(spec.shape, spec.dtype, "output")
                task = Task.make("copy", target=self.target, shape=spec.shape)
                self.call_default(task, [buf, out], f"output {name}")
                buf = out
            taken.add(buf)
            pairs.append((name, buf))
        return pairs


# graph op -> (generic template op, attrs passed as params; "shape" added from the input)
GENERIC_PARAMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "transpose": ("transpose", ("perm",)),
    "pad": ("pad", ("pads", "value")),
    "softmax": ("softmax", ("axis",)),
    "reduce_mean": ("reduce_mean", ("axes", "keepdims")),
    "lrn": ("lrn", ("size", "alpha", "beta", "bias")),
    "matmul": ("matmul", ()),
    "layer_norm": ("layer_norm", ("axis", "epsilon")),
}
# graph op -> the _Lowering method that compiles it (ops with their own argument handling)
OTHER_OPS = {
    "attention": "attention",
    "channel_affine": "channel_affine",
    "cast": "cast",
    "where": "where",
    "gather": "gather",
    "expand": "expand",
    "slice": "slice",
}


def _per_channel(x: np.ndarray, phys: tuple[int, ...]) -> np.ndarray:
    """A per-channel constant ([C, 1, 1] or [1, C, 1, 1]) as [1, C/b, 1, 1, b] (`phys`),
    its channels padded with zeros where the activation it meets is held padded."""
    flat = x.reshape(-1)
    return np.pad(flat, (0, int(np.prod(phys)) - flat.size)).reshape(phys)


def _rows(shape: tuple[int, ...]) -> tuple[int, int, int]:
    """A blocked activation [N, C/b, H, W, b] seen as [N, C/b * H * W, b]: a concat along
    channel blocks is then one along rows of vectors, whose kernel indexes each row without
    the divisions by H and W that its 5-D loop nest did per vector."""
    n, cb, h, w, b = shape
    return (n, cb * h * w, b)


def _pixels(shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """A blocked activation [N, C/b, H, W, b] seen as [N, C/b, H * W, b]."""
    n, cb, h, w, b = shape
    return (n, cb, h * w, b)


def _history(records, device_key: str | None) -> ApplyHistoryBest | None:
    if records is None:
        return None
    if isinstance(records, ApplyHistoryBest):
        return records
    if isinstance(records, (str, PathLike)):
        return ApplyHistoryBest(records, device_key)
    return ApplyHistoryBest(list(records), device_key)


def compile_graph(
    graph: Graph,
    target: str = "cpu",
    records: str | PathLike | Iterable[Record] | ApplyHistoryBest | None = None,
    device_key: str | None = None,
    optimized: bool = False,
    overrides: Mapping[Task, Config] | None = None,
) -> CompiledNetwork:
    """Lower every node of `graph` (optimised here unless `optimized`) to kernel calls with the
    best record per task from `records` (a records file, Record objects or an
    ApplyHistoryBest), falling back to default configs with the reason recorded.
    `overrides` gives some tasks a config chosen elsewhere (see `compiler.select`)."""
    check_networks(target)
    target = canonical(target)
    if not optimized:
        graph = optimize(graph)
    graph = for_target(graph, target)
    low = _Lowering(graph, target, _history(records, device_key), device_key, overrides or {})
    inputs = low.bind_inputs()
    for node in graph.nodes:
        try:
            low.lower(node)
        except TaskError as exc:  # e.g. an op the target has no kernel for
            raise CompileError(f"node {node.name!r} ({node.op}) on {target}: {exc}") from None
    outputs = low.bind_outputs()
    choices = list(low.choices.values())
    plan = ExecPlan(
        target=target,
        buffers=list(low.buffers.values()),
        kernels=list(low.kernels.values()),
        calls=low.calls,
        inputs=inputs,
        outputs=outputs,
        params=low.params,
        manifest={
            "network": graph.name,
            "device_key": device_key,
            # [lo, hi) of integer inputs (token ids: the embedding table's rows), for runs on
            # random inputs
            "input_ranges": {k: list(v) for k, v in input_ranges(graph).items()},
            "tasks": [c.to_json() for c in choices],
            "tuned_tasks": sum(c.tuned for c in choices),
            "fallback_tasks": sum(not c.tuned for c in choices),
        },
    )
    stale = low.history.stale(low.task_keys) if low.history is not None else None
    return CompiledNetwork(plan, choices, stale)
