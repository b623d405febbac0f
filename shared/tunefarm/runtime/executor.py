"""Load an artifact and run the network it holds.

All memory is allocated once at load: 64-byte aligned arrays for params, inputs and outputs,
one arena for the temps (views at the planned offsets), and the `void**` table the compiled
driver indexes by buffer number. A run is then one ctypes call; timing goes through the
driver's own clock (`tf_net_time`) so Python overhead stays out of the numbers.

The library is extracted into the build cache under its sha256, so loading is cheap and each
distinct artifact is its own dlopen handle. Executors of the *same* artifact share that handle
and hence the kernels' static scratch buffers; a lock per library serialises their runs.

Shared cores. The kernels' parallel loops end at an OpenMP barrier. With the runtime's
default wait policy the threads that finish first spin there, and when a neighbour process
holds the core of the thread still working, the spinning steals the cycles it needs: a
network slowed 28x beside two busy processes on two cores, against 7x for ONNX Runtime.
So the executor asks for the passive policy (`OPENMP_DEFAULTS`: waiting threads sleep),
unless the environment already says otherwise. The variables are read once, when the
OpenMP runtime loads, which is why they are set when this module is imported, before any
kernel library is opened (measurement children inherit them, so tuning times kernels under
the policy the network will run with). `benchmarks/contention.py` measures the choice.
"""

from __future__ import annotations

import ctypes
import hashlib
import io
import json
import math
import os
import statistics
import threading
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tunefarm.measure.host import ALIGN, aligned_copy
from tunefarm.runtime.artifact import (
    FORMAT,
    FORMAT_VERSION,
    ArtifactError,
    runtime_cache_dir,
    write_atomic,
)
from tunefarm.runtime.executor_base import (
    BenchmarkResult as BenchmarkResult,  # re-exported: callers import it from here
)
from tunefarm.runtime.executor_base import (
    ExecutorBase,
    ExecutorError,
    ProfileEntry,
    check_count,
)
from tunefarm.target import TargetError, split_target

# Read by the OpenMP runtime when it loads; an explicit setting in the environment wins.
OPENMP_DEFAULTS = {"OMP_WAIT_POLICY": "PASSIVE"}
for _name, _value in OPENMP_DEFAULTS.items():
    os.environ.setdefault(_name, _value)

MEMBERS = ("manifest.json", "plan.json", "params.npz", "lib.so")
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


# ----------------------------------------------------------------------------- loading


@dataclass(frozen=True)
class _Contents:
    manifest: dict[str, Any]
    plan: dict[str, Any]
    params: dict[str, np.ndarray]
    lib: bytes


def call_clock(target: str):
    """The clock `profile` times each call by. A network built for `-cores=1` runs every
    kernel on the calling thread, so that thread's CPU time is the call's time and, unlike
    the wall clock, leaves out the slices the scheduler gives other processes: on a shared
    host a wall-clock profile names whichever call a neighbour interrupted. The kernels' own
    `tf_time` makes the same choice (`backends/cpu/c_emitter.timing_clock`). Multi-threaded
    networks keep the wall clock: the calling thread's CPU time is not theirs."""
    try:
        _, options = split_target(target)
    except TargetError:
        return time.perf_counter
    return time.thread_time if options.get("cores") == "1" else time.perf_counter


def _read_json(zf: zipfile.ZipFile, name: str, path: Path) -> dict[str, Any]:
    try:
        obj = json.loads(zf.read(name))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ArtifactError(f"{path}: {name} is not valid JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise ArtifactError(f"{path}: {name} is not a JSON object")
    return obj


def _check_manifest(manifest: dict[str, Any], path: Path) -> None:
    if manifest.get("format") != FORMAT:
        raise ArtifactError(f"{path}: manifest.json does not describe a {FORMAT}")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise ArtifactError(
            f"{path}: artifact format version {version!r}, but this tunefarm reads version "
            f"{FORMAT_VERSION}; rebuild the artifact with this tunefarm"
        )


def _read_params(data: bytes, path: Path) -> dict[str, np.ndarray]:
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            return {name: npz[name] for name in npz.files}
    except (ValueError, OSError, zipfile.BadZipFile) as exc:
        raise ArtifactError(f"{path}: params.npz is corrupt ({exc})") from None


def read_artifact(path: str | os.PathLike[str]) -> _Contents:
    """The artifact's members, checked; ArtifactError says what is wrong with the file."""
    path = Path(path)
    if path.is_dir():
        raise ArtifactError(f"{path} is a directory; expected an artifact file (.tfa)")
    if not path.is_file():
        raise ArtifactError(f"{path}: no such artifact file")
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            if "manifest.json" not in names:
                raise ArtifactError(f"{path}: not a tunefarm artifact (no manifest.json)")
            manifest = _read_json(zf, "manifest.json", path)
            _check_manifest(manifest, path)
            missing = [m for m in MEMBERS if m not in names]
            if missing:
                raise ArtifactError(f"{path}: artifact is incomplete, missing {missing}")
            plan = _read_json(zf, "plan.json", path)
            params = _read_params(zf.read("params.npz"), path)
            lib = zf.read("lib.so")
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as exc:
        raise ArtifactError(f"{path}: not a tunefarm artifact (not a valid zip: {exc})") from None
    except OSError as exc:
        raise ArtifactError(f"{path}: cannot read artifact ({exc})") from None
    if hashlib.sha256(lib).hexdigest() != manifest.get("lib_sha256"):
        raise ArtifactError(f"{path}: lib.so does not match the manifest's sha256 (corrupt)")
    return _Contents(manifest, plan, params, lib)


def _is_device_artifact(path: Path) -> bool:
    """Whether `path` is a readable artifact whose manifest says runtime "device"."""
    try:
        with zipfile.ZipFile(path) as zf:
            manifest = _read_json(zf, "manifest.json", path)
            _check_manifest(manifest, path)
    except (OSError, KeyError, zipfile.BadZipFile, EOFError, ArtifactError):
        return False  # read_artifact says what is wrong with it
    return manifest.get("runtime") == "device"


def extract_library(lib: bytes, sha: str, cache_dir: str | os.PathLike[str] | None) -> Path:
    """`<cache>/runtime/libs/<sha256>.so`, written unless an intact copy is already there."""
    out = runtime_cache_dir(cache_dir, "libs") / f"{sha}.so"
    if not out.exists() or hashlib.sha256(out.read_bytes()).hexdigest() != sha:
        write_atomic(out, lib)
    return out


def _open_library(path: Path) -> ctypes.CDLL:
    try:
        lib = ctypes.CDLL(str(path))
    except OSError as exc:
        raise ArtifactError(f"cannot load the artifact's library {path}: {exc}") from None
    argv = ctypes.POINTER(ctypes.c_void_p)
    lib.tf_net_run.argtypes, lib.tf_net_run.restype = [argv], ctypes.c_int32
    lib.tf_net_call.argtypes, lib.tf_net_call.restype = [argv, ctypes.c_int32], ctypes.c_int32
    lib.tf_net_time.argtypes, lib.tf_net_time.restype = [argv, ctypes.c_int32], ctypes.c_double
    lib.tf_net_num_calls.argtypes, lib.tf_net_num_calls.restype = [], ctypes.c_int32
    return lib


def _lock_for(path: Path) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(str(path), threading.Lock())


# ----------------------------------------------------------------------------- memory


def _view(raw: np.ndarray, offset: int, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    nbytes = math.prod(shape) * dtype.itemsize
    return raw[offset : offset + nbytes].view(dtype).reshape(shape)


def _allocate(
    plan: dict[str, Any], params: dict[str, np.ndarray]
) -> tuple[dict[str, np.ndarray], list[np.ndarray]]:
    """Arrays of every buffer (aliases and temps are views) and the owners to keep alive."""
    memory = plan["memory"]
    specs = {b["name"]: b for b in plan["buffers"]}
    arena = aligned_copy(np.zeros(max(int(memory["arena_bytes"]), ALIGN), np.uint8))
    raw: dict[str, np.ndarray] = {}  # root buffer -> its bytes
    for name, spec in specs.items():
        if spec["alias_of"] is not None:
            continue
        nbytes = math.prod(spec["shape"]) * np.dtype(spec["dtype"]).itemsize
        if spec["kind"] == "temp":
            raw[name] = arena[memory["offsets"][name] :][:nbytes]
        elif spec["kind"] == "param":
            data = np.ascontiguousarray(params[name], dtype=spec["dtype"])
            raw[name] = aligned_copy(data.reshape(-1).view(np.uint8))
        else:
            raw[name] = aligned_copy(np.zeros(max(nbytes, 1), np.uint8))[:nbytes]
    arrays = {
        name: _view(raw[memory["roots"][name]], 0, tuple(spec["shape"]), np.dtype(spec["dtype"]))
        for name, spec in specs.items()
    }
    return arrays, [arena, *raw.values()]


# ----------------------------------------------------------------------------- executor


def check_input(name: str, dest: np.ndarray, array: Any, cast: bool) -> np.ndarray:
    """`array` as an array that may be copied into input `name`'s `dest`: the same shape,
    and the same dtype (or, with cast, one that converts within its kind)."""
    value = np.asarray(array)
    want = f"expected shape {dest.shape} dtype {dest.dtype.name}"
    if value.shape != dest.shape:
        raise ExecutorError(f"input {name!r}: {want}, got shape {value.shape}")
    if value.dtype != dest.dtype:
        if not cast:
            raise ExecutorError(
                f"input {name!r}: {want}, got dtype {value.dtype.name} (pass cast=True to convert)"
            )
        if not np.can_cast(value.dtype, dest.dtype, "same_kind"):
            raise ExecutorError(
                f"input {name!r}: {want}; cannot cast {value.dtype.name} to {dest.dtype.name}"
            )
    return value


class GraphExecutor(ExecutorBase):
    """Runs one compiled network. Create with `GraphExecutor.load(path)`."""

    def __init__(self, contents: _Contents, lib_path: Path) -> None:
        self._manifest = contents.manifest
        self.profile_clock = call_clock(str(contents.manifest.get("target", "")))
        plan = contents.plan
        try:
            self._buffers = [b["name"] for b in plan["buffers"]]
            self._calls = [(c["node"], c["kernel"]) for c in plan["calls"]]
            self._inputs = {user: buf for user, buf in plan["inputs"]}
            self._outputs = {user: buf for user, buf in plan["outputs"]}
            self._arrays, self._owners = _allocate(plan, contents.params)
        except (KeyError, TypeError, ValueError) as exc:
            raise ArtifactError(f"plan.json is corrupt ({type(exc).__name__}: {exc})") from None
        self._lib = _open_library(lib_path)
        if self._lib.tf_net_num_calls() != len(self._calls):
            raise ArtifactError("lib.so and plan.json disagree on the number of calls")
        ptrs = [self._arrays[name].ctypes.data for name in self._buffers]
        self._argv = (ctypes.c_void_p * max(1, len(ptrs)))(*ptrs)
        self._lock = _lock_for(lib_path)
        self.lib_path = lib_path

    @staticmethod
    def load(
        path: str | os.PathLike[str], cache_dir: str | os.PathLike[str] | None = None
    ) -> GraphExecutor:
        """Open an artifact made by `build_artifact`; ArtifactError if it is not a usable one.
        A device artifact (a GPU network) opens as a `runtime.device.DeviceExecutor`, which
        has the same interface."""
        if _is_device_artifact(Path(path)):
            from tunefarm.runtime.device import open_device_artifact

            return open_device_artifact(Path(path))  # type: ignore[return-value]
        contents = read_artifact(path)
        lib_path = extract_library(contents.lib, contents.manifest["lib_sha256"], cache_dir)
        return GraphExecutor(contents, lib_path)

    def _host_array(self, buf: str) -> np.ndarray:
        return self._arrays[buf]

    # -- running ----------------------------------------------------------------------------
    def set_input(self, name: str, array: Any, cast: bool = False) -> None:
        """Copy `array` into input `name`. cast=True converts same-kind dtypes (e.g. float64
        to float32); otherwise the dtype must match exactly."""
        if name not in self._inputs:
            raise ExecutorError(f"unknown input {name!r}; inputs are {self.input_names}")
        dest = self._arrays[self._inputs[name]]
        value = check_input(name, dest, array, cast)
        dest[...] = value

    def _failed(self, index: int, what: str) -> ExecutorError:
        if 0 <= index < len(self._calls):
            node, kernel = self._calls[index]
            return ExecutorError(f"call {index} (node {node!r}, kernel {kernel!r}) {what}")
        return ExecutorError(f"network run failed with code {index + 1} {what}")

    def _run_locked(self) -> None:
        rc = self._lib.tf_net_run(self._argv)
        if rc != 0:
            raise self._failed(rc - 1, "failed: the kernel returned a non-zero code")

    def run(self, inputs: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
        """Set `inputs` (if given), run the network, return copies of all outputs."""
        with self._lock:
            for name, value in (inputs or {}).items():
                self.set_input(name, value)
            self._run_locked()
            return {u: self._arrays[b].copy() for u, b in self._outputs.items()}

    def get_output(self, name: str) -> np.ndarray:
        """A copy of output `name` as the last run left it."""
        if name not in self._outputs:
            raise ExecutorError(f"unknown output {name!r}; outputs are {self.output_names}")
        return self._arrays[self._outputs[name]].copy()

    # -- timing -----------------------------------------------------------------------------
    def _run_once(self) -> None:
        self._run_locked()

    def _seconds_per_run(self, number: int) -> float:
        per_run = self._lib.tf_net_time(self._argv, number)
        if per_run < 0:
            raise self._failed(int(-per_run) - 1, "failed while timing")
        return per_run

    def profile(self, repeat: int = 10) -> list[ProfileEntry]:
        """Median time of each call over `repeat` runs of the network, call by call in order
        (so every call sees its real inputs and cache state): (node, kernel, ms) per call.
        Each sample is one ctypes call timed from Python, so it includes about a microsecond
        of call overhead; use `benchmark` for the network's total. The clock is
        `profile_clock`: thread CPU time for a `-cores=1` network, else the wall clock."""
        check_count("profile", "repeat", repeat, 1)
        samples: list[list[float]] = [[] for _ in self._calls]
        call, clock = self._lib.tf_net_call, self.profile_clock
        with self._lock:
            for round_ in range(repeat + 1):  # round 0 warms up and is not kept
                for i in range(len(self._calls)):
                    start = clock()
                    rc = call(self._argv, i)
                    elapsed = clock() - start
                    if rc != 0:
                        raise self._failed(i, f"failed with code {rc}")
                    if round_:
                        samples[i].append(elapsed)
        return [
            ProfileEntry(node, kernel, statistics.median(s) * 1e3)
            for (node, kernel), s in zip(self._calls, samples, strict=True)
        ]

    def __repr__(self) -> str:
        return (
            f"GraphExecutor({len(self._calls)} calls, inputs={self.input_names}, "
            f"outputs={self.output_names})"
        )
