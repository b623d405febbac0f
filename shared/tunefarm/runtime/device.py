"""Network artifacts for device targets (GPUs): kernels as device images, a host driver that
launches them in order, intermediates planned in device memory.

A target's backend says it runs networks on a device by having `open_network` (the GPU
backends do). Its artifact differs from a host library's in one place: instead of `lib.so`
it holds each kernel's image as the backend's toolchain makes it (`kernels/<name>.fatbin`
from nvcc for CUDA; for OpenCL the source itself, built by the driver when loaded), and
`manifest.json` says `"runtime": "device"`. The plan (buffers, calls, memory plan with
offsets aligned for the device) and the params are as for the host. The executor
(`DeviceExecutor`, made by `GraphExecutor.load`) hands these to the backend, which uploads
the params once, cuts the arena's temps out of one device allocation, binds every call's
arguments, and then runs and times the network with device events.

The runtime itself knows no GPU API: it compiles through the backend's `Toolchain` and runs
through the object `open_network` returns (`write`, `read`, `run`, `time`, `time_call`).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import statistics
import threading
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from tunefarm.backends import Backend, Target, get_backend, parse_target
from tunefarm.measure.compile import run_toolchain, toolchain_identity
from tunefarm.measure.types import Toolchain
from tunefarm.runtime.artifact import (
    ArtifactError,
    ArtifactInfo,
    _first_lines,
    _manifest_base,
    _params_npz,
    plan_json,
    runtime_cache_dir,
    write_zip,
)
from tunefarm.runtime.executor_base import ExecutorBase, ProfileEntry, check_count
from tunefarm.runtime.memory import plan_memory
from tunefarm.runtime.plan import ExecPlan

RUNTIME = "device"  # manifest["runtime"] of a device artifact


def device_backend(target: str) -> tuple[Backend, Target] | None:
    """(backend, target) when `target` runs networks on a device, else None (host library)."""
    parsed = parse_target(target)
    backend = get_backend(parsed.kind)
    return (backend, parsed) if hasattr(backend, "open_network") else None


# ----------------------------------------------------------------------------- building


def _image(
    name: str, code: str, tc: Toolchain, cache: Path, timeout_s: float
) -> tuple[bytes, bool]:
    """The kernel's device image and whether it came from the cache: the source where the
    driver builds it, else the toolchain's output, cached by (compiler, version, flags,
    source)."""
    if not tc.compiler:
        return code.encode(), False
    key = json.dumps([tc.compiler, toolchain_identity(tc), list(tc.flags), code])
    out = cache / f"{hashlib.sha256(key.encode()).hexdigest()}{tc.artifact_suffix}"
    if out.exists():
        return out.read_bytes(), True
    stem = cache / f"{name}.{os.getpid()}.{secrets.token_hex(4)}"
    src, tmp = Path(f"{stem}{tc.source_suffix}"), Path(f"{stem}.tmp{tc.artifact_suffix}")
    try:
        src.write_text(code)
        try:
            rc, output = run_toolchain(tc, str(src), str(tmp), (), timeout_s)
        except OSError as exc:
            raise ArtifactError(f"cannot run compiler {tc.compiler!r}: {exc}") from None
        if rc != 0:
            status = f"ran past {timeout_s:.0f} s" if rc is None else f"exited with {rc}"
            raise ArtifactError(
                f"kernel {name!r} failed to compile ({tc.compiler} {status}):\n"
                f"{_first_lines(output)}"
            )
        os.replace(tmp, out)
    finally:
        src.unlink(missing_ok=True)
        tmp.unlink(missing_ok=True)
    return out.read_bytes(), False


def build_device_artifact(
    plan: ExecPlan,
    path: str | os.PathLike[str],
    jobs: int | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    timeout_s: float = 600.0,
) -> ArtifactInfo:
    """`build_artifact` for a device target (see the module docstring)."""
    found = device_backend(plan.target)
    if found is None:
        raise ArtifactError(f"target {plan.target!r} does not run networks on a device")
    backend, target = found
    memory = plan_memory(plan, align=int(getattr(backend, "network_align", 64)))
    tc = backend.toolchain(target)
    cache = runtime_cache_dir(cache_dir, "device")
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, jobs or os.cpu_count() or 1)) as pool:
        futures = {k.name: pool.submit(_image, k.name, k.code, tc, cache, timeout_s)
                   for k in plan.kernels}  # fmt: skip
        built = {name: f.result() for name, f in futures.items()}  # the first error raises
    images = {name: image for name, (image, _) in built.items()}
    seconds = time.perf_counter() - start
    layout = plan_json(plan, memory)
    for entry in layout["kernels"]:
        entry["image"] = f"kernels/{entry['name']}{tc.artifact_suffix}"
    manifest = {
        **_manifest_base(plan),
        "runtime": RUNTIME,
        "compiler": toolchain_identity(tc) if tc.compiler else "device driver",
        "images_sha256": hashlib.sha256(b"".join(images.values())).hexdigest(),
    }
    members: dict[str, bytes] = {
        "manifest.json": json.dumps(manifest, indent=1, default=str).encode(),
        "plan.json": json.dumps(layout, indent=1).encode(),
        "params.npz": _params_npz(plan),
    }
    for k, entry in zip(plan.kernels, layout["kernels"], strict=True):
        members[entry["image"]] = images[k.name]
        if tc.compiler:  # the source beside the binary, for reading only
            members[f"kernels/{k.name}{tc.source_suffix}"] = k.code.encode()
    path = Path(path)
    write_zip(path, members)
    n_cached = sum(hit for _, hit in built.values())
    return ArtifactInfo.written(path, plan, memory, seconds, n_cached)


# ----------------------------------------------------------------------------- running


class DeviceExecutor(ExecutorBase):
    """A compiled network on its device; the same interface as `GraphExecutor` (which
    makes one in `load` for a device artifact)."""

    def __init__(
        self,
        manifest: dict[str, Any],
        plan: dict[str, Any],
        params: dict[str, np.ndarray],
        images: dict[str, bytes],
    ) -> None:
        from tunefarm.runtime.executor import ExecutorError

        self._error = ExecutorError
        self._manifest = manifest
        found = device_backend(manifest["target"])
        if found is None:
            raise ArtifactError(f"target {manifest['target']!r} has no device runtime")
        try:
            specs = {b["name"]: b for b in plan["buffers"]}
            self._calls = [(c["node"], c["kernel"]) for c in plan["calls"]]
            self._inputs = {user: buf for user, buf in plan["inputs"]}
            self._outputs = {user: buf for user, buf in plan["outputs"]}
        except (KeyError, TypeError, ValueError) as exc:
            raise ArtifactError(f"plan.json is corrupt ({type(exc).__name__}: {exc})") from None
        self._host = {
            buf: np.zeros(tuple(specs[buf]["shape"]), np.dtype(specs[buf]["dtype"]))
            for buf in [*self._inputs.values(), *self._outputs.values()]
        }
        try:
            self._net = found[0].open_network(plan, images, params)  # type: ignore[attr-defined]
        except ArtifactError:
            raise
        except Exception as exc:  # the device's own errors (no device, a kernel that fails)
            raise ArtifactError(f"cannot open the network on {manifest['target']}: {exc}") from None
        self._lock = threading.Lock()

    @staticmethod
    def read(zf: zipfile.ZipFile, path: Path, manifest: dict[str, Any]) -> DeviceExecutor:
        from tunefarm.runtime.executor import _read_json, _read_params

        plan = _read_json(zf, "plan.json", path)
        params = _read_params(zf.read("params.npz"), path)
        try:
            images = {k["name"]: zf.read(k["image"]) for k in plan["kernels"]}
        except KeyError as exc:
            raise ArtifactError(f"{path}: artifact is incomplete ({exc})") from None
        digest = hashlib.sha256(b"".join(images.values())).hexdigest()
        if digest != manifest.get("images_sha256"):
            raise ArtifactError(f"{path}: kernel images do not match the manifest (corrupt)")
        return DeviceExecutor(manifest, plan, params, images)

    def _host_array(self, buf: str) -> np.ndarray:
        return self._host[buf]

    # -- running ----------------------------------------------------------------------------
    def set_input(self, name: str, array: Any, cast: bool = False) -> None:
        """Copy `array` to input `name` on the device (checked as `GraphExecutor.set_input`)."""
        from tunefarm.runtime.executor import check_input

        if name not in self._inputs:
            raise self._error(f"unknown input {name!r}; inputs are {self.input_names}")
        buf = self._inputs[name]
        check_input(name, self._host[buf], array, cast)
        self._host[buf][...] = np.asarray(array)
        with self._lock:
            self._device.write(buf, self._host[buf])

    @property
    def _device(self):
        if self._net is None:
            raise self._error("this executor was closed; load the artifact again")
        return self._net

    def _run(self, calls: range | None = None) -> None:
        net = self._device
        try:
            net.run(calls)
        except Exception as exc:
            raise self._error(f"network run failed on the device: {exc}") from None

    def run(self, inputs: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
        """Set `inputs` (if given), run the network, return copies of all outputs."""
        for name, value in (inputs or {}).items():
            self.set_input(name, value)
        with self._lock:
            self._run()
            return {u: self._download(b) for u, b in self._outputs.items()}

    def _download(self, buf: str) -> np.ndarray:
        self._device.read(buf, self._host[buf])
        return self._host[buf].copy()

    def get_output(self, name: str) -> np.ndarray:
        if name not in self._outputs:
            raise self._error(f"unknown output {name!r}; outputs are {self.output_names}")
        with self._lock:
            return self._download(self._outputs[name])

    # -- timing -----------------------------------------------------------------------------
    def _run_once(self) -> None:
        self._run()

    def _seconds_per_run(self, number: int) -> float:
        """By device events; inputs and outputs stay on the device."""
        return self._device.time(number)

    def profile(self, repeat: int = 10):
        """Median device time of each call over `repeat` runs, call by call in order."""
        check_count("profile", "repeat", repeat, 1)
        samples: list[list[float]] = [[] for _ in self._calls]
        with self._lock:
            for round_ in range(repeat + 1):  # round 0 warms up and is not kept
                for i in range(len(self._calls)):
                    elapsed = self._device.time_call(i)
                    if round_:
                        samples[i].append(elapsed)
        return [
            ProfileEntry(node, kernel, statistics.median(s) * 1e3)
            for (node, kernel), s in zip(self._calls, samples, strict=True)
        ]

    def close(self) -> None:
        """Give the network's device memory and kernels back now (also done when the
        executor is garbage collected)."""
        net = getattr(self, "_net", None)
        if net is not None:
            self._net = None
            net.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the driver may be gone already
            pass

    def __repr__(self) -> str:
        return (
            f"DeviceExecutor({self._manifest['target']}, {len(self._calls)} calls, "
            f"inputs={self.input_names}, outputs={self.output_names})"
        )


def open_device_artifact(path: Path) -> DeviceExecutor:
    try:
        with zipfile.ZipFile(path) as zf:
            from tunefarm.runtime.executor import _read_json

            manifest = _read_json(zf, "manifest.json", path)
            return DeviceExecutor.read(zf, path, manifest)
    except (zipfile.BadZipFile, EOFError) as exc:
        raise ArtifactError(f"{path}: not a tunefarm artifact (not a valid zip: {exc})") from None
