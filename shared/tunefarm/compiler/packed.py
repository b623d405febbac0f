"""A packed network (`graph.passes.graph_pack`) compiled with the best records and run split
between the host CPU and an accelerator, as the VTA tutorial's last step.

    net = PackedNetwork(packed_graph, "vta", ApplyHistoryBest("r18.jsonl"), workdir)
    outputs, timing = net.run({"data": x})

Compiling: every `conv2d_packed` node gets its kernel from its target's backend, through the
op registry, with the config of the best record of its tuning task (`graph_pack.tuning_task`:
the node's shapes, whatever its shift and clip) or the default config; the kernel is the
backend's artifact (for VTA, its program), loaded by the backend's kernel loader.

Running: nodes in graph order; the packed convs on the accelerator through the loaded
kernels (for VTA, the cycle-level simulator: functional results, and the simulated time at
the configured clock); the float stem and head natively, compiled for the host CPU
(`cpu_segments`, when given: timed by the runtime's loop), and the rest (quantize, layout
transforms at the region's edges, the residual adds) by the graph's numpy kernels, timed on
the host. The network's time is the accelerator's plus the CPU's.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tunefarm.backends import registry
from tunefarm.backends.base import backend_of, parse_target
from tunefarm.compiler.cpu_segments import Segment
from tunefarm.graph.interpret import run_node
from tunefarm.graph.ir import Graph, GraphError
from tunefarm.graph.passes.graph_pack import node_task, tuning_task
from tunefarm.measure.types import Config
from tunefarm.schedule.template import Packer
from tunefarm.task import Task
from tunefarm.tune.dispatch import ApplyHistoryBest

PACKED_OP = "conv2d_packed"


@dataclass
class PackedTiming:
    """Seconds of one run: accelerator (simulated) and CPU (measured), per node too."""

    accel_s: float = 0.0
    cpu_s: float = 0.0
    nodes: dict[str, float] = field(default_factory=dict)

    @property
    def total_s(self) -> float:
        return self.accel_s + self.cpu_s

    def to_json(self) -> dict[str, Any]:
        return {"accel_ms": self.accel_s * 1e3, "cpu_ms": self.cpu_s * 1e3,
                "total_ms": self.total_s * 1e3}  # fmt: skip


@dataclass(frozen=True)
class PackedKernel:
    """One node's kernel: its task, config (and where the config came from), artifact."""

    node: str
    task: Task
    config: Config
    source: str  # "record" or why the default config
    artifact: Path
    bias_packer: Packer  # the bias from (O,) to the kernel's layout
    out_shape: tuple[int, ...]


class PackedNetwork:
    """A packed graph with a kernel for each packed conv, ready to run."""

    def __init__(
        self,
        graph: Graph,
        target: str,
        history: ApplyHistoryBest | None,
        workdir: Path,
        segments: list[Segment] | None = None,
    ) -> None:
        """segments: the float CPU parts compiled natively (`compile_segments`); None runs
        them with the numpy kernels too."""
        self.graph, self.target = graph, target
        self.segments = {s.first: s for s in segments or []}
        workdir.mkdir(parents=True, exist_ok=True)
        self.kernels = {
            n.name: self._compile(n, history, workdir) for n in graph.nodes if n.op == PACKED_OP
        }

    def _compile(self, node, history, workdir: Path) -> PackedKernel:
        task = node_task(self.graph, node, self.target)
        if history is not None:
            config, source = history.query(tuning_task(task))
        else:
            config, source = registry.default_config(task), "untuned (no records)"
        backend = backend_of(task)
        toolchain = backend.toolchain(parse_target(task.target))
        kdef = registry.instantiate(task, config)
        if kdef.code is None or toolchain.compiler:
            raise GraphError(f"{node.where()}: the {task.target} backend has no loadable program")
        path = workdir / f"{node.name}{toolchain.artifact_suffix}"
        path.write_text(kdef.code)
        out_shape = self.graph.shape(node.outputs[0])
        return PackedKernel(node.name, task, config, source, path, kdef.packers[2], out_shape)

    def run(
        self, inputs: Mapping[str, np.ndarray], on_cpu: bool = False
    ) -> tuple[dict[str, np.ndarray], PackedTiming]:
        """Outputs and times of one run; `on_cpu` runs the packed convs by their numpy kernels
        instead (the int8 CPU reference: everything else the same, so the two must agree bit
        for bit)."""
        env: dict[str, np.ndarray] = dict(self.graph.params)
        env.update({k: np.asarray(v, np.float32) for k, v in inputs.items()})
        timing = PackedTiming()
        skip_to = 0
        for index, node in enumerate(self.graph.nodes):
            if index < skip_to:
                continue
            segment = self.segments.get(index)
            if segment is not None:
                outs, seconds = segment.run(env)
                env.update(outs)
                timing.cpu_s += seconds
                timing.nodes[segment.graph.name] = seconds
                skip_to = index + len(segment.nodes)
                continue
            args = [env[i] for i in node.inputs]
            if node.op == PACKED_OP and not on_cpu:
                out, seconds = self._accelerate(self.kernels[node.name], args)
                timing.accel_s += seconds
                outs = [out]
            else:
                start = time.perf_counter()
                outs = run_node(node, args)
                seconds = time.perf_counter() - start
                timing.cpu_s += seconds
            timing.nodes[node.name] = seconds
            env.update(zip(node.outputs, outs, strict=True))
        return {o: env[o] for o in self.graph.outputs}, timing

    def _accelerate(self, k: PackedKernel, args: list[np.ndarray]) -> tuple[np.ndarray, float]:
        """Run one packed conv on the device: data and weight are already in the kernel's
        layouts; the bias goes from (O,) to the kernel's; the output is the last argument."""
        data, weight, bias = args
        kargs = [data, weight, k.bias_packer(bias), np.zeros(k.out_shape, np.int8)]
        kernel = backend_of(k.task).kernel_loader(str(k.artifact), kargs)
        kernel.run()
        return kernel.outputs()[-1].copy(), kernel.time(1)

    def summary(self) -> list[dict[str, Any]]:
        """Per packed node: its task's shapes, config and where the config came from."""
        return [
            {
                "node": k.node,
                "workload": k.task.args,
                "config": k.config.as_dict(),
                "source": k.source,
            }  # fmt: skip
            for k in self.kernels.values()
        ]
