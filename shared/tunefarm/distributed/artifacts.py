"""The artifact store: durable files (models, graphs, logs, kernels, compiled networks) under
one directory, which is a PersistentVolume in Kubernetes. Services pass store-relative paths
to each other, so hosts that mount the store at different places still agree."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

# The files of a job, under jobs/<job id>/ (written by the pipeline's steps, read by the
# gateway for downloads).
MODEL_FILE, GRAPH_FILE, TASKS_FILE = "model.onnx", "graph.npz", "tasks.json"
LOG_FILE, TUNED_FILE, UNTUNED_FILE = "records.jsonl", "net.tfa", "untuned.tfa"
PACKED_FILE = "packed.npz"  # a packed (vta) job's graph after graph_pack


class ArtifactError(ValueError):
    """A path outside the store, or a file that is not there."""


class ArtifactStore:
    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root).absolute()
        self.root.mkdir(parents=True, exist_ok=True)

    def path(self, relative: str) -> Path:
        """The absolute path of a store-relative one; refuses anything outside the store."""
        full = (self.root / relative).resolve()
        if full != self.root.resolve() and self.root.resolve() not in full.parents:
            raise ArtifactError(f"{relative!r} is outside the artifact store")
        return full

    def relative(self, path: str | os.PathLike) -> str:
        """The store-relative form of an absolute path inside the store."""
        try:
            return str(Path(path).resolve().relative_to(self.root.resolve()))
        except ValueError:
            raise ArtifactError(f"{path} is not inside the artifact store {self.root}") from None

    def job_dir(self, job_id: str) -> Path:
        path = self.path(f"jobs/{job_id}")
        path.mkdir(parents=True, exist_ok=True)
        return path

    def job_file(self, job_id: str, name: str) -> Path:
        return self.job_dir(job_id) / name

    def kernels_dir(self) -> Path:
        path = self.path("kernels")
        path.mkdir(parents=True, exist_ok=True)
        return path

    def write_bytes(self, relative: str, data: bytes) -> Path:
        """Write atomically (temporary file + rename), so readers never see half a file."""
        target = self.path(relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
        return target
