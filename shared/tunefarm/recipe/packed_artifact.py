"""A compiled packed network (the VTA flow's) as one file, so `tunefarm compile` can hand it to
`tunefarm run` and a job's agent can run what the search worker compiled.

    info = save_packed(packed_graph, "vta", ApplyHistoryBest("r.jsonl"), "net.tfa")
    with load_packed("net.tfa") as net:
        outputs, timing = net.run({"data": x})

The file is a zip, like the CPU artifact (`runtime.artifact`), told apart by its manifest's
`format` ("tunefarm-packed"):

    manifest.json   format, format_version, target, network, created, kernels (node, workload,
                    config, where the config came from), segments (first node, file)
    graph.npz       the packed graph (`Graph.save`)
    kernels/*.json  each packed conv's program (for VTA, its instruction stream and micro-ops)
    cpu/*.tfa       the float stem and head, each a CPU artifact (`compiler.cpu_segments`)

Loading makes each packed conv's program again from its stored config (the kernel also needs
its bias packer, which only instantiating gives) and refuses the file if a program differs from
the stored one: that artifact was made by another version of the code generator.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tunefarm.backends.base import backend_of
from tunefarm.compiler import cpu_segments
from tunefarm.compiler.packed import PackedNetwork, PackedTiming
from tunefarm.graph.ir import Graph
from tunefarm.graph.passes.graph_pack import node_task, tuning_task
from tunefarm.measure.types import Config
from tunefarm.runtime.executor import GraphExecutor

FORMAT = "tunefarm-packed"
FORMAT_VERSION = 1
MANIFEST, GRAPH = "manifest.json", "graph.npz"


class PackedArtifactError(ValueError):
    """A file that is not a packed network, or one this version cannot run as it was made."""


@dataclass(frozen=True)
class PackedInfo:
    path: str
    size_bytes: int
    kernels: int
    tuned: int  # packed convs whose config came from a record
    segments: int
    choices: tuple = ()  # per packed conv: node, workload, config, source (see PackedNetwork)

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "choices"}

    def __str__(self) -> str:
        return (
            f"{self.path}: packed network, {self.kernels} packed conv(s) ({self.tuned} tuned), "
            f"{self.segments} CPU segment(s), {self.size_bytes} bytes"
        )


def is_packed_artifact(path: str | os.PathLike) -> bool:
    """Whether `path` is a zip whose manifest says it is a packed network."""
    try:
        with zipfile.ZipFile(path) as z:
            return json.loads(z.read(MANIFEST)).get("format") == FORMAT
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return False


def save_packed(
    packed: Graph, target: str, history: Any, path: str | os.PathLike, network: str = ""
) -> PackedInfo:
    """Compile the packed graph (each packed conv with its best record in `history`, or its
    default config when `history` is None; the CPU parts for the host) and write the file
    atomically (a temporary file renamed over `path`)."""
    path = Path(path)
    with tempfile.TemporaryDirectory(prefix="tunefarm-packed-save-") as tmp:
        segments = cpu_segments.compile_segments(packed, Path(tmp) / "cpu")
        net = PackedNetwork(packed, target, history, Path(tmp) / "kernels", segments)
        kernels = net.summary()
        for k in kernels:
            k["file"] = f"kernels/{net.kernels[k['node']].artifact.name}"
        manifest = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "target": target,
            "network": network or packed.name,
            "created": time.time(),
            "kernels": kernels,
            "segments": [
                {"first": s.first, "nodes": len(s.nodes), "file": f"cpu/cpu{i}.tfa"}
                for i, s in enumerate(segments)
            ],
        }
        packed.save(str(Path(tmp) / GRAPH))
        partial = path.with_name(f".{path.name}.tmp")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(MANIFEST, json.dumps(manifest, indent=1, default=list))
            z.write(Path(tmp) / GRAPH, GRAPH)
            for k in kernels:
                z.write(Path(tmp) / k["file"], k["file"])
            for s in manifest["segments"]:
                z.write(Path(tmp) / s["file"], s["file"])
        partial.replace(path)
    tuned = sum(k["source"] == "record" for k in kernels)
    size = path.stat().st_size
    return PackedInfo(str(path), size, len(kernels), tuned, len(segments), tuple(kernels))


class _StoredChoices:
    """The configs of a saved network, answered as `ApplyHistoryBest.query` does."""

    def __init__(self, graph: Graph, target: str, kernels: list[dict[str, Any]]) -> None:
        nodes = {n.name: n for n in graph.nodes}
        self._by_key = {}
        for k in kernels:
            task = tuning_task(node_task(graph, nodes[k["node"]], target))
            self._by_key[task.workload_key] = (Config.make(k["config"]), k["source"])

    def query(self, task, device_key=None):
        return self._by_key[task.workload_key]


class StatsNetwork(PackedNetwork):
    """A PackedNetwork that also keeps what the device reports of each packed conv's last run
    (for VTA: its cycles and each module's busy cycles), when its kernel reports it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.device_stats: dict[str, dict[str, Any]] = {}

    def _accelerate(self, k, args):
        data, weight, bias = args
        kargs = [data, weight, k.bias_packer(bias), np.zeros(k.out_shape, np.int8)]
        kernel = backend_of(k.task).kernel_loader(str(k.artifact), kargs)
        kernel.run()
        last = getattr(kernel, "last", None)
        if last is not None and hasattr(last, "cycles"):
            self.device_stats[k.node] = {"cycles": int(last.cycles), "busy": dict(last.busy)}
        return kernel.outputs()[-1].copy(), kernel.time(1)

    def device_totals(self) -> dict[str, Any] | None:
        """Cycles over the packed convs of the last run and each module's busy share of them;
        None when the device reports no cycles."""
        if not self.device_stats:
            return None
        cycles = sum(s["cycles"] for s in self.device_stats.values())
        busy: dict[str, int] = {}
        for s in self.device_stats.values():
            for module, n in s["busy"].items():
                busy[module] = busy.get(module, 0) + int(n)
        shares = {m: (n / cycles if cycles else 0.0) for m, n in busy.items()}
        return {"cycles": cycles, "busy_share": shares}


class LoadedPacked:
    """A packed network loaded from its file, ready to run; its files live in a temporary
    directory until `close` (or the end of a `with` block)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="tunefarm-packed-load-")
        root = Path(self._tmp.name)
        try:
            self.manifest = _extract(path, root)
            self.network = _rebuild(self.manifest, root)
        except BaseException:
            self._tmp.cleanup()
            raise
        self.target = self.manifest["target"]
        self.graph = self.network.graph

    def run(self, inputs, on_cpu: bool = False) -> tuple[dict[str, Any], PackedTiming]:
        return self.network.run(inputs, on_cpu=on_cpu)

    def close(self) -> None:
        self._tmp.cleanup()

    def __enter__(self) -> LoadedPacked:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def load_packed(path: str | os.PathLike) -> LoadedPacked:
    return LoadedPacked(path)


def _extract(path: str | os.PathLike, root: Path) -> dict[str, Any]:
    if not Path(path).is_file():
        raise PackedArtifactError(f"{path}: no such file")
    try:
        with zipfile.ZipFile(path) as z:
            manifest = json.loads(z.read(MANIFEST))
            if manifest.get("format") != FORMAT:
                raise PackedArtifactError(
                    f"{path}: not a packed network ({manifest.get('format')})"
                )
            if manifest.get("format_version") != FORMAT_VERSION:
                raise PackedArtifactError(
                    f"{path}: packed network format version {manifest.get('format_version')}, "
                    f"this version reads {FORMAT_VERSION}"
                )
            names = [GRAPH, *(k["file"] for k in manifest["kernels"])]
            names += [s["file"] for s in manifest["segments"]]
            for name in names:
                if Path(name).is_absolute() or ".." in Path(name).parts:
                    raise PackedArtifactError(f"{path}: member {name!r} outside the artifact")
                z.extract(name, root)
    except (KeyError, ValueError, zipfile.BadZipFile) as exc:
        if isinstance(exc, PackedArtifactError):
            raise
        raise PackedArtifactError(f"{path}: not a readable packed network ({exc})") from None
    return manifest


def _rebuild(manifest: dict[str, Any], root: Path) -> StatsNetwork:
    graph = Graph.load(str(root / GRAPH))
    target = manifest["target"]
    segments = cpu_segments.float_segments(graph)
    stored = manifest["segments"]
    if [(s["first"], s["nodes"]) for s in stored] != [(g.first, len(g.nodes)) for g in segments]:
        raise PackedArtifactError("its CPU segments do not match its graph's float runs")
    for seg, s in zip(segments, stored, strict=True):
        seg.executor = GraphExecutor.load(str(root / s["file"]))
    programs = {k["node"]: (root / k["file"]).read_text() for k in manifest["kernels"]}
    choices = _StoredChoices(graph, target, manifest["kernels"])
    net = StatsNetwork(graph, target, choices, root / "kernels", segments)
    for node, text in programs.items():
        if net.kernels[node].artifact.read_text() != text:
            raise PackedArtifactError(
                f"packed conv {node!r}: its stored program differs from the one its config "
                "makes now; the artifact was made by another version, compile it again"
            )
    return net
